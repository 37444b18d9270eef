//! Custom scalars: `DateTime` (RFC 3339, UTC, microseconds) and `Currency` (ISO 4217).

use async_graphql::{InputValueError, InputValueResult, Scalar, ScalarType, Value};

use crate::domain::currency;
use crate::domain::time::Timestamp;
use crate::error::codes;

/// RFC 3339 date-time in UTC with microsecond precision, e.g. `2026-11-30T04:01:48.000120Z`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DateTime(pub Timestamp);

#[Scalar(name = "DateTime")]
impl ScalarType for DateTime {
    fn parse(value: Value) -> InputValueResult<Self> {
        match &value {
            Value::String(text) => Timestamp::parse_rfc3339(text).map(DateTime).map_err(|e| {
                InputValueError::custom(e).with_extension("code", codes::BAD_USER_INPUT)
            }),
            _ => {
                Err(InputValueError::expected_type(value)
                    .with_extension("code", codes::BAD_USER_INPUT))
            }
        }
    }

    fn is_valid(value: &Value) -> bool {
        matches!(value, Value::String(_))
    }

    fn to_value(&self) -> Value {
        Value::String(self.0.to_rfc3339())
    }
}

/// An active ISO 4217 alphabetic currency code, upper case, e.g. `USD`, `JPY`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Currency(pub currency::Currency);

#[Scalar(name = "Currency")]
impl ScalarType for Currency {
    fn parse(value: Value) -> InputValueResult<Self> {
        let refuse = |message: String| {
            InputValueError::custom(message).with_extension("code", codes::INVALID_CURRENCY)
        };
        match &value {
            Value::String(code) => currency::Currency::parse(code)
                .map(Currency)
                .map_err(refuse),
            other => Err(refuse(format!(
                "expected a currency code string, got {other}"
            ))),
        }
    }

    /// Strings pass validation so that a wrong code is refused by `parse`, with
    /// `INVALID_CURRENCY`, whether it came inline or in a variable.
    fn is_valid(value: &Value) -> bool {
        matches!(value, Value::String(_))
    }

    fn to_value(&self) -> Value {
        Value::String(self.0.code())
    }
}
