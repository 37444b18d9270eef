//! Refunds in the state machine: how a refund moves, and what settling one does to its
//! payment.

use super::{PaymentOperation, next};
use crate::domain::status::PaymentStatus;

/// Something that may change a refund's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefundOperation {
    Succeed,
    Fail,
}

/// A refund's status after `operation`; only a PENDING refund moves.
pub fn next_refund(
    from: crate::domain::status::RefundStatus,
    operation: RefundOperation,
) -> Result<
    crate::domain::status::RefundStatus,
    (crate::domain::status::RefundStatus, RefundOperation),
> {
    use crate::domain::status::RefundStatus as R;
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
    pub refund_to: crate::domain::status::RefundStatus,
    pub payment_to: PaymentStatus,
    pub amount_refunded: i64,
}

/// Plans the settlement of a refund of `refund_amount` on a payment that captured `amount` and
/// has `amount_refunded` already; refused when the refund is not pending or the payment is not
/// REFUNDING.
pub fn settle_refund(
    payment_status: PaymentStatus,
    amount: i64,
    amount_refunded: i64,
    refund_status: crate::domain::status::RefundStatus,
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
