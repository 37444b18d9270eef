// The viewer's events as the gateway announces them over the WebSocket, from the last one the
// dashboard had read when it loaded. Each event brings its payment as the change left it, and
// that is written into the Relay store, so the list and the details show the new state without
// a reload; a payment created since the list was read goes on top of it. When the WebSocket
// drops, the subscription resumes after the last event heard (see relay/environment.js): what
// happened in between arrives once, in order, and then what happens live.

import { useMemo, useState, useSyncExternalStore } from 'react';
import { graphql, useSubscription } from 'react-relay';
import { ConnectionHandler } from 'relay-runtime';
import { ErrorMessage } from './ErrorMessage';
import { formatTime } from './format';

const KEPT = 50;

export default function LiveUpdates({ liveStatus, after }) {
  const status = useSyncExternalStore(liveStatus.subscribe, liveStatus.get);
  const [updates, setUpdates] = useState([]);
  const [error, setError] = useState(null);

  const config = useMemo(
    () => ({
      subscription: graphql`
        subscription LiveUpdatesSubscription($after: String) {
          events(after: $after) {
            cursor
            node {
              id
              type
              createdAt
              payment {
                id
                status
                ...PaymentRow_payment
                ...PaymentDetails_payment
              }
            }
          }
        }
      `,
      variables: { after },
      updater: listNewPayment,
      onNext: (response) => {
        const { id, type, createdAt, payment } = response.events.node;
        const update = { id, type, createdAt, paymentId: payment.id, status: payment.status };
        setUpdates((kept) => [update, ...kept].slice(0, KEPT));
      },
      onError: setError,
    }),
    [after],
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
            key={update.id}
            data-testid="live-update"
            data-event={update.id}
            data-type={update.type}
            data-id={update.paymentId}
            data-status={update.status}
          >
            {formatTime(update.createdAt)} <code>{update.paymentId}</code> {update.type} → {update.status}
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * Puts the event's payment on top of the unfiltered list when it is not listed and is at least
 * as new as the newest listed: a payment created since the list was read. An older one that is
 * not listed is on a page not loaded yet, where "Load more" finds it.
 */
function listNewPayment(store) {
  const payment = store.getRootField('events')?.getLinkedRecord('node')?.getLinkedRecord('payment');
  const list = ConnectionHandler.getConnection(store.getRoot(), 'PaymentList_payments', { filter: null });
  if (!payment || !list) return;
  const listed = (list.getLinkedRecords('edges') ?? []).map((edge) => edge?.getLinkedRecord('node'));
  if (listed.some((node) => node?.getDataID() === payment.getDataID())) return;
  const newest = listed[0]?.getValue('createdAt');
  if (newest && Date.parse(payment.getValue('createdAt')) < Date.parse(newest)) return;
  const edge = ConnectionHandler.createEdge(store, list, payment, 'PaymentEdge');
  ConnectionHandler.insertEdgeBefore(list, edge);
  const total = list.getValue('totalCount');
  if (typeof total === 'number') list.setValue(total + 1, 'totalCount');
}
