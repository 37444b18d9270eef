//! The payment state machine of the contract: every allowed transition, and a typed refusal
//! for every other (state, operation) pair. All writers decide through `next`.

use super::status::PaymentStatus;

/// Something that may change a payment's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaymentOperation {
    /// `createPayment(confirm: true)` or `confirmPayment`.
    Confirm,
    /// The processor approved a charge (`AUTOMATIC`): captured at once.
    ProcessorApproved,
    /// The processor approved an authorization (`MANUAL`): held until captured.
    ProcessorAuthorized,
    ProcessorDeclined,
    /// The processor asks the customer to act (3-D Secure).
    ActionRequired,
    /// The customer answered the action; the processor decides next.
    CustomerActed,
    /// `capturePayment`, confirmed by the processor.
    Capture,
    /// `cancelPayment`: PENDING and REQUIRES_ACTION, and REQUIRES_CAPTURE by a void.
    Cancel,
    /// Expiry after reconciling with the processor (an authorization past `captureBefore`
    /// included).
    Expire,
    RefundRequested,
    /// `fully`: the refunds now add up to the whole amount.
    RefundSucceeded {
        fully: bool,
    },
    /// `partially_refunded_before`: where to go back to.
    RefundFailed {
        partially_refunded_before: bool,
    },
}

impl PaymentOperation {
    /// Every operation, each variant of the refund outcomes included.
    pub const ALL: [PaymentOperation; 14] = [
        PaymentOperation::Confirm,
        PaymentOperation::ProcessorApproved,
        PaymentOperation::ProcessorAuthorized,
        PaymentOperation::ProcessorDeclined,
        PaymentOperation::ActionRequired,
        PaymentOperation::CustomerActed,
        PaymentOperation::Capture,
        PaymentOperation::Cancel,
        PaymentOperation::Expire,
        PaymentOperation::RefundRequested,
        PaymentOperation::RefundSucceeded { fully: true },
        PaymentOperation::RefundSucceeded { fully: false },
        PaymentOperation::RefundFailed {
            partially_refunded_before: true,
        },
        PaymentOperation::RefundFailed {
            partially_refunded_before: false,
        },
    ];

    /// The operation's name, as `extensions.operation` reports it.
    pub const fn name(self) -> &'static str {
        match self {
            PaymentOperation::Confirm => "confirm",
            PaymentOperation::ProcessorApproved => "approve",
            PaymentOperation::ProcessorAuthorized => "authorize",
            PaymentOperation::ProcessorDeclined => "decline",
            PaymentOperation::ActionRequired => "require action for",
            PaymentOperation::CustomerActed => "complete the customer action of",
            PaymentOperation::Capture => "capture",
            PaymentOperation::Cancel => "cancel",
            PaymentOperation::Expire => "expire",
            PaymentOperation::RefundRequested => "refund",
            PaymentOperation::RefundSucceeded { .. } => "complete a refund of",
            PaymentOperation::RefundFailed { .. } => "fail a refund of",
        }
    }
}

/// A refused transition: the status it was attempted from, and the operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidTransition {
    pub from: PaymentStatus,
    pub operation: PaymentOperation,
}

/// The status after `operation`, or the refusal.
pub fn next(
    from: PaymentStatus,
    operation: PaymentOperation,
) -> Result<PaymentStatus, InvalidTransition> {
    use PaymentOperation as Op;
    use PaymentStatus as S;
    let refuse = Err(InvalidTransition { from, operation });
    match (from, operation) {
        (S::Pending, Op::Confirm) => Ok(S::Processing),
        (S::Pending, Op::Cancel | Op::Expire) => Ok(S::Canceled),
        (S::Processing, Op::ProcessorApproved) => Ok(S::Succeeded),
        (S::Processing, Op::ProcessorAuthorized) => Ok(S::RequiresCapture),
        (S::Processing, Op::ProcessorDeclined) => Ok(S::Failed),
        (S::Processing, Op::ActionRequired) => Ok(S::RequiresAction),
        (S::Processing, Op::Expire) => Ok(S::Canceled),
        (S::RequiresAction, Op::CustomerActed) => Ok(S::Processing),
        (S::RequiresAction, Op::Cancel | Op::Expire) => Ok(S::Canceled),
        (S::RequiresCapture, Op::Capture) => Ok(S::Succeeded),
        (S::RequiresCapture, Op::Cancel | Op::Expire) => Ok(S::Canceled),
        (S::Succeeded | S::PartiallyRefunded, Op::RefundRequested) => Ok(S::Refunding),
        (S::Refunding, Op::RefundSucceeded { fully: true }) => Ok(S::Refunded),
        (S::Refunding, Op::RefundSucceeded { fully: false }) => Ok(S::PartiallyRefunded),
        (
            S::Refunding,
            Op::RefundFailed {
                partially_refunded_before: true,
            },
        ) => Ok(S::PartiallyRefunded),
        (
            S::Refunding,
            Op::RefundFailed {
                partially_refunded_before: false,
            },
        ) => Ok(S::Succeeded),
        (
            S::Pending,
            Op::ProcessorApproved
            | Op::ProcessorAuthorized
            | Op::ProcessorDeclined
            | Op::ActionRequired
            | Op::CustomerActed
            | Op::Capture
            | Op::RefundRequested
            | Op::RefundSucceeded { .. }
            | Op::RefundFailed { .. },
        )
        | (
            S::Processing,
            Op::Confirm
            | Op::CustomerActed
            | Op::Capture
            | Op::Cancel
            | Op::RefundRequested
            | Op::RefundSucceeded { .. }
            | Op::RefundFailed { .. },
        )
        | (
            S::RequiresAction,
            Op::Confirm
            | Op::ProcessorApproved
            | Op::ProcessorAuthorized
            | Op::ProcessorDeclined
            | Op::ActionRequired
            | Op::Capture
            | Op::RefundRequested
            | Op::RefundSucceeded { .. }
            | Op::RefundFailed { .. },
        )
        | (
            S::RequiresCapture,
            Op::Confirm
            | Op::ProcessorApproved
            | Op::ProcessorAuthorized
            | Op::ProcessorDeclined
            | Op::ActionRequired
            | Op::CustomerActed
            | Op::RefundRequested
            | Op::RefundSucceeded { .. }
            | Op::RefundFailed { .. },
        )
        | (
            S::Succeeded | S::PartiallyRefunded,
            Op::Confirm
            | Op::ProcessorApproved
            | Op::ProcessorAuthorized
            | Op::ProcessorDeclined
            | Op::ActionRequired
            | Op::CustomerActed
            | Op::Capture
            | Op::Cancel
            | Op::Expire
            | Op::RefundSucceeded { .. }
            | Op::RefundFailed { .. },
        )
        | (
            S::Refunding,
            Op::Confirm
            | Op::ProcessorApproved
            | Op::ProcessorAuthorized
            | Op::ProcessorDeclined
            | Op::ActionRequired
            | Op::CustomerActed
            | Op::Capture
            | Op::Cancel
            | Op::Expire
            | Op::RefundRequested,
        )
        | (
            S::Failed | S::Canceled | S::Refunded,
            Op::Confirm
            | Op::ProcessorApproved
            | Op::ProcessorAuthorized
            | Op::ProcessorDeclined
            | Op::ActionRequired
            | Op::CustomerActed
            | Op::Capture
            | Op::Cancel
            | Op::Expire
            | Op::RefundRequested
            | Op::RefundSucceeded { .. }
            | Op::RefundFailed { .. },
        ) => refuse,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PaymentOperation as Op;
    use PaymentStatus as S;

    const OPS: [Op; 14] = Op::ALL;

    #[test]
    fn exactly_the_contract_table_is_allowed() {
        let allowed = [
            (S::Pending, Op::Confirm, S::Processing),
            (S::Pending, Op::Cancel, S::Canceled),
            (S::Pending, Op::Expire, S::Canceled),
            (S::Processing, Op::ProcessorApproved, S::Succeeded),
            (S::Processing, Op::ProcessorDeclined, S::Failed),
            (S::Processing, Op::Expire, S::Canceled),
            (S::Processing, Op::ProcessorAuthorized, S::RequiresCapture),
            (S::Processing, Op::ActionRequired, S::RequiresAction),
            (S::RequiresAction, Op::CustomerActed, S::Processing),
            (S::RequiresAction, Op::Cancel, S::Canceled),
            (S::RequiresAction, Op::Expire, S::Canceled),
            (S::RequiresCapture, Op::Capture, S::Succeeded),
            (S::RequiresCapture, Op::Cancel, S::Canceled),
            (S::RequiresCapture, Op::Expire, S::Canceled),
            (S::Succeeded, Op::RefundRequested, S::Refunding),
            (S::PartiallyRefunded, Op::RefundRequested, S::Refunding),
            (
                S::Refunding,
                Op::RefundSucceeded { fully: true },
                S::Refunded,
            ),
            (
                S::Refunding,
                Op::RefundSucceeded { fully: false },
                S::PartiallyRefunded,
            ),
            (
                S::Refunding,
                Op::RefundFailed {
                    partially_refunded_before: true,
                },
                S::PartiallyRefunded,
            ),
            (
                S::Refunding,
                Op::RefundFailed {
                    partially_refunded_before: false,
                },
                S::Succeeded,
            ),
        ];
        for from in S::ALL.iter().copied() {
            for op in OPS {
                let want = allowed
                    .iter()
                    .find(|(f, o, _)| *f == from && *o == op)
                    .map(|(_, _, to)| *to);
                match want {
                    Some(to) => assert_eq!(next(from, op), Ok(to), "{from:?} {op:?}"),
                    None => assert_eq!(
                        next(from, op),
                        Err(InvalidTransition {
                            from,
                            operation: op
                        }),
                        "{from:?} {op:?}"
                    ),
                }
            }
        }
    }
}

mod refunds;

pub use refunds::*;
