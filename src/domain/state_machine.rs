//! The payment state machine of the contract: every allowed transition, and a typed refusal
//! for every other (state, operation) pair. All writers decide through `next`.

use super::status::PaymentStatus;

/// Something that may change a payment's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaymentOperation {
    /// `createPayment(confirm: true)` or `confirmPayment`.
    Confirm,
    ProcessorApproved,
    ProcessorDeclined,
    /// `cancelPayment` (PENDING only).
    Cancel,
    /// Expiry after reconciling with the processor.
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
    pub const ALL: [PaymentOperation; 10] = [
        PaymentOperation::Confirm,
        PaymentOperation::ProcessorApproved,
        PaymentOperation::ProcessorDeclined,
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
            PaymentOperation::ProcessorDeclined => "decline",
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
        (S::Processing, Op::ProcessorDeclined) => Ok(S::Failed),
        (S::Processing, Op::Expire) => Ok(S::Canceled),
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
            | Op::ProcessorDeclined
            | Op::RefundRequested
            | Op::RefundSucceeded { .. }
            | Op::RefundFailed { .. },
        )
        | (
            S::Processing,
            Op::Confirm
            | Op::Cancel
            | Op::RefundRequested
            | Op::RefundSucceeded { .. }
            | Op::RefundFailed { .. },
        )
        | (
            S::Succeeded | S::PartiallyRefunded,
            Op::Confirm
            | Op::ProcessorApproved
            | Op::ProcessorDeclined
            | Op::Cancel
            | Op::Expire
            | Op::RefundSucceeded { .. }
            | Op::RefundFailed { .. },
        )
        | (
            S::Refunding,
            Op::Confirm
            | Op::ProcessorApproved
            | Op::ProcessorDeclined
            | Op::Cancel
            | Op::Expire
            | Op::RefundRequested,
        )
        | (
            S::Failed | S::Canceled | S::Refunded,
            Op::Confirm
            | Op::ProcessorApproved
            | Op::ProcessorDeclined
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

    const OPS: [Op; 10] = Op::ALL;

    #[test]
    fn exactly_the_contract_table_is_allowed() {
        let allowed = [
            (S::Pending, Op::Confirm, S::Processing),
            (S::Pending, Op::Cancel, S::Canceled),
            (S::Pending, Op::Expire, S::Canceled),
            (S::Processing, Op::ProcessorApproved, S::Succeeded),
            (S::Processing, Op::ProcessorDeclined, S::Failed),
            (S::Processing, Op::Expire, S::Canceled),
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

/// Something that may change a refund's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefundOperation {
    Succeed,
    Fail,
}

/// A refund's status after `operation`; only a PENDING refund moves.
pub fn next_refund(
    from: super::status::RefundStatus,
    operation: RefundOperation,
) -> Result<super::status::RefundStatus, (super::status::RefundStatus, RefundOperation)> {
    use super::status::RefundStatus as R;
    match (from, operation) {
        (R::Pending, RefundOperation::Succeed) => Ok(R::Succeeded),
        (R::Pending, RefundOperation::Fail) => Ok(R::Failed),
        (R::Succeeded | R::Failed, RefundOperation::Succeed | RefundOperation::Fail) => {
            Err((from, operation))
        }
    }
}

/// Whether a stored event's change is one the table allows.
///
/// Exists for the tests and benchmarks (feature `test-support`).
#[cfg(any(test, feature = "test-support"))]
pub fn is_allowed_change(from: Option<PaymentStatus>, to: PaymentStatus) -> bool {
    match from {
        None => matches!(to, PaymentStatus::Pending | PaymentStatus::Processing),
        Some(from) => PaymentOperation::ALL
            .iter()
            .any(|op| next(from, *op) == Ok(to)),
    }
}

#[cfg(test)]
mod refund_tests {
    use super::*;
    use crate::domain::status::RefundStatus as R;

    #[test]
    fn only_pending_refunds_settle() {
        assert_eq!(
            next_refund(R::Pending, RefundOperation::Succeed),
            Ok(R::Succeeded)
        );
        assert_eq!(
            next_refund(R::Pending, RefundOperation::Fail),
            Ok(R::Failed)
        );
        for from in [R::Succeeded, R::Failed] {
            for op in [RefundOperation::Succeed, RefundOperation::Fail] {
                assert!(next_refund(from, op).is_err());
            }
        }
    }

    #[test]
    fn allowed_changes_follow_the_table() {
        assert!(is_allowed_change(None, PaymentStatus::Pending));
        assert!(!is_allowed_change(None, PaymentStatus::Succeeded));
        assert!(is_allowed_change(
            Some(PaymentStatus::Refunding),
            PaymentStatus::Succeeded
        ));
        assert!(!is_allowed_change(
            Some(PaymentStatus::Failed),
            PaymentStatus::Succeeded
        ));
        assert!(!is_allowed_change(
            Some(PaymentStatus::Refunded),
            PaymentStatus::Refunding
        ));
    }
}

/// How settling a refund changes the refund and its payment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefundSettlement {
    pub refund_to: super::status::RefundStatus,
    pub payment_to: PaymentStatus,
    pub amount_refunded: i64,
}

/// Plans the settlement of a refund of `refund_amount` on a payment of `amount` that has
/// `amount_refunded` already; refused when the refund is not pending or the payment is not
/// REFUNDING.
pub fn settle_refund(
    payment_status: PaymentStatus,
    amount: i64,
    amount_refunded: i64,
    refund_status: super::status::RefundStatus,
    refund_amount: i64,
    operation: RefundOperation,
) -> Result<RefundSettlement, &'static str> {
    let refund_to =
        next_refund(refund_status, operation).map_err(|_| "the refund is already settled")?;
    let (payment_operation, amount_refunded) = match operation {
        RefundOperation::Succeed => {
            let total = amount_refunded + refund_amount;
            if total > amount {
                return Err("the refund would exceed the payment");
            }
            (
                PaymentOperation::RefundSucceeded {
                    fully: total == amount,
                },
                total,
            )
        }
        RefundOperation::Fail => (
            PaymentOperation::RefundFailed {
                partially_refunded_before: amount_refunded > 0,
            },
            amount_refunded,
        ),
    };
    let payment_to =
        next(payment_status, payment_operation).map_err(|_| "the payment is not being refunded")?;
    Ok(RefundSettlement {
        refund_to,
        payment_to,
        amount_refunded,
    })
}

#[cfg(test)]
mod settlement_tests {
    use super::*;
    use crate::domain::status::RefundStatus as R;

    #[test]
    fn settlements_move_both_rows_or_neither() {
        let s = settle_refund(
            PaymentStatus::Refunding,
            100,
            30,
            R::Pending,
            70,
            RefundOperation::Succeed,
        );
        assert_eq!(
            s,
            Ok(RefundSettlement {
                refund_to: R::Succeeded,
                payment_to: PaymentStatus::Refunded,
                amount_refunded: 100
            })
        );
        let s = settle_refund(
            PaymentStatus::Refunding,
            100,
            0,
            R::Pending,
            70,
            RefundOperation::Succeed,
        );
        assert_eq!(
            s.map(|s| s.payment_to),
            Ok(PaymentStatus::PartiallyRefunded)
        );
        let s = settle_refund(
            PaymentStatus::Refunding,
            100,
            30,
            R::Pending,
            70,
            RefundOperation::Fail,
        );
        assert_eq!(
            s,
            Ok(RefundSettlement {
                refund_to: R::Failed,
                payment_to: PaymentStatus::PartiallyRefunded,
                amount_refunded: 30
            })
        );
        let s = settle_refund(
            PaymentStatus::Refunding,
            100,
            0,
            R::Pending,
            70,
            RefundOperation::Fail,
        );
        assert_eq!(s.map(|s| s.payment_to), Ok(PaymentStatus::Succeeded));
        assert!(
            settle_refund(
                PaymentStatus::Refunding,
                100,
                50,
                R::Pending,
                70,
                RefundOperation::Succeed
            )
            .is_err()
        );
        assert!(
            settle_refund(
                PaymentStatus::Refunding,
                100,
                0,
                R::Succeeded,
                70,
                RefundOperation::Succeed
            )
            .is_err()
        );
        assert!(
            settle_refund(
                PaymentStatus::Succeeded,
                100,
                0,
                R::Pending,
                70,
                RefundOperation::Succeed
            )
            .is_err()
        );
    }
}
