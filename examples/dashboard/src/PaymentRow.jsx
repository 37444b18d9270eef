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
      <td>{formatTime(data.createdAt)}</td>
      <td>{data.description ?? <span className="muted">{data.id}</span>}</td>
      <td className="amount">{formatAmount(data.amount, data.currency)}</td>
      <td><span className={`status ${data.status}`} data-testid="status">{data.status}</span></td>
    </tr>
  );
}
