//! Which of a payment's columns a page reads, and reading a payment from such a row by
//! position. A page reads what its selection shows: the listing's columns always (id, money,
//! status, times: what a cursor and `amountRefundable` need), and any of the rest only when a
//! field asks for it.

use super::DbError;
use super::entities::payments;
use super::rows;
use crate::domain::capture::CaptureMethod;
use crate::domain::merchant_data::Metadata;
use crate::domain::payment::Payment;
use crate::domain::time::Timestamp;

/// A payment's column beyond the listing's, named for what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaymentDetail {
    AccountId,
    Source,
    Description,
    FailureCode,
    FailureMessage,
    ProcessorKey,
    ProcessorRef,
    Version,
    CaptureMethod,
    AmountCapturable,
    CaptureBefore,
    CaptureAmount,
    CancellationReason,
    NextActionUrl,
    ReturnUrl,
    Reference,
    Metadata,
}

/// Every column, in the order a statement selects them: the listing's first, then each
/// [`PaymentDetail`] in its order.
const ALL_COLUMNS: [payments::Column; 25] = [
    payments::Column::Id,
    payments::Column::Amount,
    payments::Column::Currency,
    payments::Column::Status,
    payments::Column::AmountRefunded,
    payments::Column::CreatedAt,
    payments::Column::UpdatedAt,
    payments::Column::AmountCaptured,
    payments::Column::AccountId,
    payments::Column::Source,
    payments::Column::Description,
    payments::Column::FailureCode,
    payments::Column::FailureMessage,
    payments::Column::ProcessorKey,
    payments::Column::ProcessorRef,
    payments::Column::Version,
    payments::Column::CaptureMethod,
    payments::Column::AmountCapturable,
    payments::Column::CaptureBefore,
    payments::Column::CaptureAmount,
    payments::Column::CancellationReason,
    payments::Column::NextActionUrl,
    payments::Column::ReturnUrl,
    payments::Column::Reference,
    payments::Column::Metadata,
];

/// How many of [`ALL_COLUMNS`], from the first, every read takes: its id, money (what was
/// captured too: what is refundable depends on it), status and times.
const LISTING_COLUMNS: usize = 8;

/// Which columns a statement reads: the listing's, and a set of [`PaymentDetail`]s. A detail
/// left out comes back empty (its text empty or null, its number 0, the capture method
/// `AUTOMATIC`), so a payment read with fewer than [`PaymentColumns::ALL`] is only for a
/// reader that shows none of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PaymentColumns(u32);

impl Default for PaymentColumns {
    fn default() -> Self {
        Self::ALL
    }
}

impl PaymentColumns {
    /// Every column: the payment as stored.
    pub const ALL: Self = Self((1 << ALL_COLUMNS.len()) - 1);
    /// The listing's columns alone.
    pub const LISTING: Self = Self((1 << LISTING_COLUMNS) - 1);

    /// These columns and `detail`'s.
    pub const fn with(self, detail: PaymentDetail) -> Self {
        Self(self.0 | 1 << (LISTING_COLUMNS + detail as usize))
    }

    /// These columns and `other`'s.
    pub const fn and(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    fn has(self, index: usize) -> bool {
        self.0 & (1 << index) != 0
    }

    /// The columns, in the order [`payment_in`] reads them: a statement that selects a
    /// payment for it selects exactly these first.
    pub(crate) fn list(self) -> impl Iterator<Item = payments::Column> {
        (0..ALL_COLUMNS.len())
            .filter(move |index| self.has(*index))
            .map(|index| ALL_COLUMNS[index])
    }
}

/// A payment of `account_id` from a row that starts with `columns`' list, read by position
/// from the driver's row straight into the payment: no column is looked up by name, and a
/// stored name (currency, status, capture method) is read from the row's bytes without a
/// string of its own. Pages read 50 rows at a time, and reading each column by its name (what
/// a `Model` read from a query does) cost about a sixth of the gateway's work per page.
pub(crate) fn payment_in(
    row: &sea_orm::QueryResult,
    columns: PaymentColumns,
    account_id: &str,
) -> Result<Payment, DbError> {
    if let Some(row) = row.try_as_pg_row() {
        payment_at(row, columns, account_id)
    } else if let Some(row) = row.try_as_sqlite_row() {
        payment_at(row, columns, account_id)
    } else {
        Err(DbError::Other("a row of an unknown driver".into()))
    }
}

fn payment_at<'r, R>(
    row: &'r R,
    columns: PaymentColumns,
    account_id: &str,
) -> Result<Payment, DbError>
where
    R: sea_orm::sqlx::Row,
    usize: sea_orm::sqlx::ColumnIndex<R>,
    String: sea_orm::sqlx::Decode<'r, R::Database> + sea_orm::sqlx::Type<R::Database>,
    &'r str: sea_orm::sqlx::Decode<'r, R::Database> + sea_orm::sqlx::Type<R::Database>,
    i64: sea_orm::sqlx::Decode<'r, R::Database> + sea_orm::sqlx::Type<R::Database>,
    i32: sea_orm::sqlx::Decode<'r, R::Database> + sea_orm::sqlx::Type<R::Database>,
    Option<String>: sea_orm::sqlx::Decode<'r, R::Database> + sea_orm::sqlx::Type<R::Database>,
    Option<&'r str>: sea_orm::sqlx::Decode<'r, R::Database> + sea_orm::sqlx::Type<R::Database>,
    Option<i64>: sea_orm::sqlx::Decode<'r, R::Database> + sea_orm::sqlx::Type<R::Database>,
{
    fn read<'r, R, T>(row: &'r R, index: usize, column: usize) -> Result<T, DbError>
    where
        R: sea_orm::sqlx::Row,
        usize: sea_orm::sqlx::ColumnIndex<R>,
        T: sea_orm::sqlx::Decode<'r, R::Database> + sea_orm::sqlx::Type<R::Database>,
    {
        // Unchecked: the statement selects these columns in this order, so each one's type
        // is the table's; checking it against the driver's type information for every value
        // of every row cost more than decoding it. A value that does not decode is still an
        // error.
        row.try_get_unchecked(index).map_err(|err| {
            let column = sea_orm::IdenStatic::as_str(&ALL_COLUMNS[column]);
            DbError::Other(format!("payments.{column}: {err}"))
        })
    }
    let mut payment = Payment {
        id: read(row, 0, 0)?,
        amount: rows::amount(read(row, 1, 1)?)?,
        currency: rows::currency(read(row, 2, 2)?)?,
        status: rows::payment_status(read(row, 3, 3)?)?,
        amount_refunded: read(row, 4, 4)?,
        created_at: Timestamp::from_micros(read(row, 5, 5)?),
        updated_at: Timestamp::from_micros(read(row, 6, 6)?),
        amount_captured: read(row, 7, 7)?,
        account_id: account_id.to_string(),
        source: String::new(),
        description: None,
        failure_code: None,
        failure_message: None,
        processor_key: String::new(),
        processor_ref: None,
        version: 0,
        capture_method: CaptureMethod::Automatic,
        amount_capturable: 0,
        capture_before: None,
        capture_amount: None,
        cancellation_reason: None,
        next_action_url: None,
        return_url: None,
        reference: None,
        metadata: Metadata::default(),
    };
    let mut index = LISTING_COLUMNS;
    for (column, name) in ALL_COLUMNS.iter().enumerate().skip(LISTING_COLUMNS) {
        if !columns.has(column) {
            continue;
        }
        let p = &mut payment;
        match name {
            payments::Column::AccountId => p.account_id = read(row, index, column)?,
            payments::Column::Source => p.source = read(row, index, column)?,
            payments::Column::Description => p.description = read(row, index, column)?,
            payments::Column::FailureCode => p.failure_code = read(row, index, column)?,
            payments::Column::FailureMessage => p.failure_message = read(row, index, column)?,
            payments::Column::ProcessorKey => p.processor_key = read(row, index, column)?,
            payments::Column::ProcessorRef => p.processor_ref = read(row, index, column)?,
            payments::Column::Version => p.version = read(row, index, column)?,
            payments::Column::CaptureMethod => {
                p.capture_method = rows::capture_method(read(row, index, column)?)?
            }
            payments::Column::AmountCapturable => p.amount_capturable = read(row, index, column)?,
            payments::Column::CaptureBefore => {
                p.capture_before =
                    read::<_, Option<i64>>(row, index, column)?.map(Timestamp::from_micros)
            }
            payments::Column::CaptureAmount => p.capture_amount = read(row, index, column)?,
            payments::Column::CancellationReason => {
                p.cancellation_reason = rows::cancellation_reason(read(row, index, column)?)?
            }
            payments::Column::NextActionUrl => p.next_action_url = read(row, index, column)?,
            payments::Column::ReturnUrl => p.return_url = read(row, index, column)?,
            payments::Column::Reference => p.reference = read(row, index, column)?,
            payments::Column::Metadata => p.metadata = rows::metadata(read(row, index, column)?)?,
            other => {
                let name = sea_orm::IdenStatic::as_str(other);
                return Err(DbError::Other(format!("payments.{name} read twice")));
            }
        }
        index += 1;
    }
    Ok(payment)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_detail_names_its_column() {
        let details = [
            (PaymentDetail::AccountId, payments::Column::AccountId),
            (PaymentDetail::Source, payments::Column::Source),
            (PaymentDetail::Description, payments::Column::Description),
            (PaymentDetail::FailureCode, payments::Column::FailureCode),
            (
                PaymentDetail::FailureMessage,
                payments::Column::FailureMessage,
            ),
            (PaymentDetail::ProcessorKey, payments::Column::ProcessorKey),
            (PaymentDetail::ProcessorRef, payments::Column::ProcessorRef),
            (PaymentDetail::Version, payments::Column::Version),
            (
                PaymentDetail::CaptureMethod,
                payments::Column::CaptureMethod,
            ),
            (
                PaymentDetail::AmountCapturable,
                payments::Column::AmountCapturable,
            ),
            (
                PaymentDetail::CaptureBefore,
                payments::Column::CaptureBefore,
            ),
            (
                PaymentDetail::CaptureAmount,
                payments::Column::CaptureAmount,
            ),
            (
                PaymentDetail::CancellationReason,
                payments::Column::CancellationReason,
            ),
            (
                PaymentDetail::NextActionUrl,
                payments::Column::NextActionUrl,
            ),
            (PaymentDetail::ReturnUrl, payments::Column::ReturnUrl),
            (PaymentDetail::Reference, payments::Column::Reference),
            (PaymentDetail::Metadata, payments::Column::Metadata),
        ];
        let mut every = PaymentColumns::LISTING;
        for (detail, column) in details {
            let one: Vec<_> = PaymentColumns::LISTING.with(detail).list().collect();
            assert_eq!(one.len(), LISTING_COLUMNS + 1, "{detail:?}");
            let name = |c: payments::Column| sea_orm::IdenStatic::as_str(&c).to_string();
            assert_eq!(name(one[LISTING_COLUMNS]), name(column), "{detail:?}");
            every = every.with(detail);
        }
        assert_eq!(every, PaymentColumns::ALL);
        assert_eq!(PaymentColumns::ALL.list().count(), ALL_COLUMNS.len());
        assert_eq!(
            PaymentColumns::LISTING.and(PaymentColumns::ALL),
            PaymentColumns::ALL
        );
    }
}
