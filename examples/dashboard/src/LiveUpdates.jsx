// Payment changes as the gateway announces them over the WebSocket. Each update is written
// into the Relay store, so the list and the details show the new state without a reload.

import { useMemo, useState, useSyncExternalStore } from 'react';
import { graphql, useSubscription } from 'react-relay';
import { ErrorMessage } from './ErrorMessage';
import { formatTime } from './format';

const KEPT = 20;

export default function LiveUpdates({ liveStatus }) {
  const status = useSyncExternalStore(liveStatus.subscribe, liveStatus.get);
  const [updates, setUpdates] = useState([]);
  const [error, setError] = useState(null);

  const config = useMemo(
    () => ({
      subscription: graphql`
        subscription LiveUpdatesSubscription {
          paymentUpdated {
            id
            status
            updatedAt
            ...PaymentRow_payment
            ...PaymentDetails_payment
          }
        }
      `,
      variables: {},
      onNext: (response) => {
        const { id, status: paymentStatus, updatedAt } = response.paymentUpdated;
        setUpdates((kept) => [{ id, status: paymentStatus, updatedAt }, ...kept].slice(0, KEPT));
      },
      onError: setError,
    }),
    [],
  );
  useSubscription(config);

  return (
    <section className="live">
      <h3>
        Live updates <span className={`live-status ${status}`} data-testid="live-status">{status}</span>
      </h3>
      <ErrorMessage error={error} />
      <ul>
        {updates.map((update) => (
          <li
            key={`${update.id}-${update.updatedAt}-${update.status}`}
            data-testid="live-update"
            data-id={update.id}
            data-status={update.status}
          >
            {formatTime(update.updatedAt)} <code>{update.id}</code> → {update.status}
          </li>
        ))}
      </ul>
    </section>
  );
}
