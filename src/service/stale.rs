//! The one retry of version-checked writes: a write that finds the row changed since it was
//! read (`Written::Stale`) reads it again and decides again, a bounded number of times.
//!
//! ```ignore
//! let mut retries = StaleRetries::default();
//! let written = loop {
//!     let row = read().await?;
//!     match write(&row).await? {
//!         Written::Done(written) => break written,
//!         Written::Stale => retries.again(busy)?,
//!     }
//! };
//! ```

use super::ServiceError;

/// How often a write that keeps losing to concurrent writers is tried before giving up.
pub(crate) const MAX_STALE_RETRIES: usize = 8;

/// Counts the writes one loop has lost to concurrent writers.
#[derive(Debug, Default)]
pub(crate) struct StaleRetries {
    lost: usize,
}

impl StaleRetries {
    /// Another write was lost: `Ok` to read again and retry, or `exhausted()` once
    /// [`MAX_STALE_RETRIES`] writes were lost.
    pub(crate) fn again(
        &mut self,
        exhausted: impl FnOnce() -> ServiceError,
    ) -> Result<(), ServiceError> {
        self.lost += 1;
        if self.lost >= MAX_STALE_RETRIES {
            Err(exhausted())
        } else {
            Ok(())
        }
    }
}

/// What a writer that kept losing is told: someone else is at work on the row, try again.
pub(crate) fn busy() -> ServiceError {
    ServiceError::RequestInProgress {
        retry_after_seconds: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loop_may_lose_a_bounded_number_of_writes() {
        let mut retries = StaleRetries::default();
        for _ in 1..MAX_STALE_RETRIES {
            assert!(retries.again(busy).is_ok());
        }
        assert!(matches!(
            retries.again(busy),
            Err(ServiceError::RequestInProgress { .. })
        ));
    }
}
