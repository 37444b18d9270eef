// One payment: its amounts, the merchant's reference and metadata, status changes and refunds,
// and a button to refund it.

import { useState } from 'react';
import { graphql, useFragment, useLazyLoadQuery, useMutation } from 'react-relay';
import { ErrorMessage } from './ErrorMessage';
import { formatAmount, formatTime } from './format';

const REFUNDABLE = ['SUCCEEDED', 'PARTIALLY_REFUNDED'];

export default function PaymentDetails({ id }) {
  const data = useLazyLoadQuery(
    graphql`
      query PaymentDetailsQuery($id: ID!) {
        payment(id: $id) {
          ...PaymentDetails_payment
        }
      }
    `,
    { id },
  );
  if (!data.payment) return <p>No payment {id}.</p>;
  return <Details payment={data.payment} />;
}

function Details({ payment }) {
  const data = useFragment(
    graphql`
      fragment PaymentDetails_payment on Payment {
        id
        amount
        currency
        status
        amountRefunded
        amountRefundable
        description
        reference
        metadata {
          key
          value
        }
        events {
          fromStatus
          toStatus
          reason
          createdAt
        }
        refunds {
          id
          amount
          status
          reason
          createdAt
        }
      }
    `,
    payment,
  );
  const money = (minorUnits) => formatAmount(minorUnits, data.currency);

  return (
    <section className="details" data-testid="details" data-id={data.id}>
      <h2>{data.description ?? 'Payment'}</h2>
      <p>
        <code>{data.id}</code> <span className={`status ${data.status}`}>{data.status}</span>
      </p>
      <dl>
        <dt>Amount</dt>
        <dd>{money(data.amount)}</dd>
        <dt>Refunded</dt>
        <dd>{money(data.amountRefunded)}</dd>
        <dt>Refundable</dt>
        <dd>{money(data.amountRefundable)}</dd>
        <dt>Reference</dt>
        <dd data-testid="reference">{data.reference ?? <span className="muted">none</span>}</dd>
      </dl>
      <RefundButton
        paymentId={data.id}
        disabled={!REFUNDABLE.includes(data.status) || data.amountRefundable === 0}
        label={`Refund ${money(data.amountRefundable)}`}
      />

      <h3>Metadata</h3>
      {data.metadata.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <dl className="metadata" data-testid="metadata">
          {data.metadata.map(({ key, value }) => (
            <div key={key} data-testid="metadata-entry" data-key={key}>
              <dt>{key}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      )}

      <h3>Events</h3>
      <ol data-testid="events">
        {data.events.map((event, i) => (
          <li key={i}>
            {formatTime(event.createdAt)}: {event.fromStatus ?? 'new'} → {event.toStatus}
            {event.reason && <span className="muted"> ({event.reason})</span>}
          </li>
        ))}
      </ol>

      <h3>Refunds</h3>
      {data.refunds.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul data-testid="refunds">
          {data.refunds.map((refund) => (
            <li key={refund.id}>
              {formatTime(refund.createdAt)}: {money(refund.amount)} {refund.status}
              {refund.reason && <span className="muted"> ({refund.reason})</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * Refunds everything still refundable. The answer brings the new refund; the payment's new
 * status arrives with the live events, as it does for every open dashboard.
 */
function RefundButton({ paymentId, disabled, label }) {
  const [commit, isInFlight] = useMutation(graphql`
    mutation PaymentDetailsRefundMutation($input: RefundPaymentInput!, $idempotencyKey: String!) {
      refundPayment(input: $input, idempotencyKey: $idempotencyKey) {
        payment {
          id
          refunds {
            id
            amount
            status
            reason
            createdAt
          }
        }
      }
    }
  `);
  const [error, setError] = useState(null);

  function refund() {
    setError(null);
    commit({
      variables: {
        input: { paymentId, reason: 'requested_by_customer' },
        idempotencyKey: crypto.randomUUID(),
      },
      onError: setError,
    });
  }

  return (
    <>
      <button type="button" onClick={refund} disabled={disabled || isInFlight}>
        {isInFlight ? 'Refunding…' : label}
      </button>
      <ErrorMessage error={error} />
    </>
  );
}
