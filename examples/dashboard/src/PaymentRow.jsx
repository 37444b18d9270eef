// One line of the payment list.

import { graphql, useFragment } from 'react-relay';
import { formatAmount, formatTime } from './format';

export default function PaymentRow({ payment, selected, onSelect }) {
  const data = useFragment(
    graphql`
      fragment PaymentRow_payment on Payment {
        id
        amount
        currency
        status
        description
        reference
        createdAt
      }
    `,
    payment,
  );
  return (
    <tr
      className={selected ? 'selected' : undefined}
      data-testid="payment-row"
      data-id={data.id}
      onClick={onSelect}
    >
      <td className="created">{formatTime(data.createdAt)}</td>
      <td>{data.description ?? <span className="muted">{data.id}</span>}</td>
      <td className="reference" data-testid="reference" title={data.reference ?? undefined}>
        {data.reference && <code>{data.reference}</code>}
      </td>
      <td className="amount">{formatAmount(data.amount, data.currency)}</td>
      <td><span className={`status ${data.status}`} data-testid="status">{data.status}</span></td>
    </tr>
  );
}
