// The GraphQL documents this page sends, and nothing else. The page never sends their text:
// it sends each one's id from persisted-documents.json (the gateway's trusted documents),
// which `npm run manifest` writes from this file and `npm run validate` checks against it.

/** Pays the rendered order once: the merchant's submit token is the idempotency key. */
export const PAY = `mutation CheckoutPay($input: CreatePaymentInput!, $submitToken: String!) {
  createPayment(input: $input, idempotencyKey: $submitToken) {
    replayed
    payment {
      id
      status
      amount
      currency
      failureCode
      failureMessage
      nextAction { type redirectUrl }
    }
  }
}`;

/** What became of a payment, for the page the customer lands on after 3-D Secure. */
export const OUTCOME = `query CheckoutOutcome($id: ID!) {
  payment(id: $id) {
    id
    status
    amount
    currency
    failureCode
    failureMessage
    nextAction { type redirectUrl }
  }
}`;

export const DOCUMENTS = { PAY, OUTCOME };
