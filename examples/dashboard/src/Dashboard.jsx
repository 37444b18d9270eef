// The viewer's payments, the one selected, and what changes live.

import { Suspense, useState } from 'react';
import { graphql, useLazyLoadQuery } from 'react-relay';
import { ErrorBoundary } from './ErrorMessage';
import LiveUpdates from './LiveUpdates';
import PaymentDetails from './PaymentDetails';
import PaymentList from './PaymentList';

export default function Dashboard({ liveStatus }) {
  const data = useLazyLoadQuery(
    graphql`
      query DashboardQuery {
        viewer {
          name
        }
        ...PaymentList_query
        # Where live updates start: after the log's last event as this request read it.
        latestEvent: events(last: 1) {
          edges {
            cursor
          }
        }
      }
    `,
    {},
  );
  const [selected, setSelected] = useState(null);

  return (
    <div className="dashboard">
      <section className="list">
        <h2>Payments of {data.viewer.name}</h2>
        <PaymentList query={data} selected={selected} onSelect={setSelected} />
      </section>
      <aside>
        {selected && (
          <ErrorBoundary key={selected}>
            <Suspense fallback={<p>Loading payment…</p>}>
              <PaymentDetails id={selected} />
            </Suspense>
          </ErrorBoundary>
        )}
        <LiveUpdates liveStatus={liveStatus} after={data.latestEvent.edges[0]?.cursor ?? null} />
      </aside>
    </div>
  );
}
