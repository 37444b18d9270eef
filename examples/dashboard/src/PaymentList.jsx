// The viewer's payments, newest first, a page at a time, optionally of one status.

import { useTransition } from 'react';
import { graphql, usePaginationFragment } from 'react-relay';
import PaymentRow from './PaymentRow';

const PAGE_SIZE = 25;
const STATUSES = [
  'PENDING', 'PROCESSING', 'SUCCEEDED', 'FAILED', 'CANCELED',
  'REFUNDING', 'PARTIALLY_REFUNDED', 'REFUNDED',
];

export default function PaymentList({ query, selected, onSelect }) {
  const { data, loadNext, hasNext, isLoadingNext, refetch } = usePaginationFragment(
    graphql`
      fragment PaymentList_query on Query
      @refetchable(queryName: "PaymentListPaginationQuery")
      @argumentDefinitions(
        count: { type: "Int", defaultValue: 25 }
        cursor: { type: "String" }
        filter: { type: "PaymentFilter" }
      ) {
        payments(first: $count, after: $cursor, filter: $filter)
        @connection(key: "PaymentList_payments", filters: ["filter"]) {
          totalCount
          edges {
            node {
              id
              ...PaymentRow_payment
            }
          }
        }
      }
    `,
    query,
  );
  const [isRefetching, startTransition] = useTransition();
  const { edges, totalCount } = data.payments;

  function filterBy(status) {
    startTransition(() => {
      refetch({ filter: status ? { status: [status] } : null }, { fetchPolicy: 'network-only' });
    });
  }

  return (
    <>
      <div className="toolbar">
        <label>
          Status{' '}
          <select name="status" onChange={(event) => filterBy(event.target.value)}>
            <option value="">All</option>
            {STATUSES.map((status) => (
              <option key={status} value={status}>{status}</option>
            ))}
          </select>
        </label>
        <span className="muted" data-testid="count">
          {isRefetching ? 'Filtering…' : `${edges.length} of ${totalCount}`}
        </span>
      </div>
      <table>
        <thead>
          <tr>
            <th>Created</th>
            <th>Description</th>
            <th>Reference</th>
            <th className="amount">Amount</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {edges.map(({ node }) => (
            <PaymentRow
              key={node.id}
              payment={node}
              selected={node.id === selected}
              onSelect={() => onSelect(node.id)}
            />
          ))}
        </tbody>
      </table>
      {hasNext && (
        <button type="button" disabled={isLoadingNext} onClick={() => loadNext(PAGE_SIZE)}>
          {isLoadingNext ? 'Loading…' : 'Load more'}
        </button>
      )}
    </>
  );
}
