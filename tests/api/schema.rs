//! `schema.graphql` is generated from the code; this fails, with a diff, when they drift.
//! Regenerate with: cargo run -- schema > schema.graphql

#[test]
fn committed_schema_matches_the_code() {
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/schema.graphql"))
        .expect("schema.graphql exists at the top of the repository");
    similar_asserts::assert_eq!(
        committed: committed,
        generated: graphpay::graphql::sdl(),
        "schema.graphql is stale: regenerate it with `cargo run -- schema > schema.graphql`"
    );
}

#[test]
fn schema_has_the_contract_root_types_and_names() {
    let sdl = graphpay::graphql::sdl();
    for needle in [
        "type Query",
        "interface Node",
        "scalar DateTime",
        "scalar Currency",
        "enum PaymentStatus",
        "enum RefundStatus",
        "type PaymentEvent",
        "node(id: ID!): Node",
        "nodes(ids: [ID!]!): [Node]!",
        "viewer: Account!",
        "payment(id: ID!): Payment",
        "amountRefundable: Int!",
        "type Mutation",
        "type Subscription",
        "paymentUpdated(id: ID): Payment!",
        "createPayment(idempotencyKey: String!, input: CreatePaymentInput!): PaymentPayload\n",
        "confirmPayment(idempotencyKey: String!, paymentId: ID!): PaymentPayload\n",
        "cancelPayment(idempotencyKey: String, paymentId: ID!, reason: CancellationReason): PaymentPayload\n",
        "capturePayment(idempotencyKey: String!, input: CapturePaymentInput!): PaymentPayload\n",
        "captureMethod: CaptureMethod = AUTOMATIC",
        "returnUrl: String",
        "amountCapturable: Int!",
        "amountCaptured: Int!",
        "captureBefore: DateTime",
        "nextAction: NextAction",
        "cancellationReason: CancellationReason",
        "REQUIRES_CAPTURE",
        "REQUIRES_ACTION",
        "refundPayment(idempotencyKey: String!, input: RefundPaymentInput!): RefundPayload\n",
        "confirm: Boolean = true",
        "idempotencyRecord(key: String!): IdempotencyRecord",
        "direction: OrderDirection! = DESC",
        "field: PaymentOrderField! = CREATED_AT",
        "totalCount: Int!",
    ] {
        assert!(sdl.contains(needle), "schema lacks {needle:?}");
    }
}
