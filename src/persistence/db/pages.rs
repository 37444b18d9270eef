//! Page reads' own pool on PostgreSQL, whose connections keep one generic plan for each
//! statement (`plan_cache_mode = force_generic_plan`).
//!
//! A page's statement is prepared once per connection and run with the account and the
//! cursor's position as parameters (its limit is written into the text). Left to choose,
//! PostgreSQL plans it afresh on every execution (a custom plan) for an account that holds a
//! large share of the table: the plan made for that account is estimated cheaper than the
//! generic one, by more than planning is reckoned to cost. Yet it is the same backward scan
//! of the index that orders the page, and planning it again costs about a third of the
//! statement, so the merchants with the most payments paid the most for each page. A keyset
//! page's plan is that index, whatever the values, so its connections keep the generic plan.
//! A page filtered by status walks the account's index by status instead (one walk per
//! status, merged, see `payment_pages`), whatever the status, once the table's statistics
//! hold more than one status, as any gateway's do. A page whose walk depends on its values
//! (a narrow range of amounts, see `payment_pages::planned_for_values`) is planned for them
//! each time instead, on the main pool.
//! Every other statement stays on the main pool, planned as PostgreSQL chooses: some need
//! their values to use a partial index (the authorization sweeper's `status`). The pool takes
//! half of the connections the instance is configured for (`DATABASE_MAX_CONNECTIONS`), so an
//! instance holds no more than before.

use sea_orm::{ConnectOptions, Database, DatabaseConnection};

use super::{Backend, DbConfig, DbError, options};

/// The setting page reads' connections open with.
const GENERIC_PLANS: (&str, &str) = ("plan_cache_mode", "force_generic_plan");

/// How `max_connections` is shared: the main pool's part and page reads' (half, on
/// PostgreSQL with two connections or more; none otherwise, and page reads share the main
/// pool). An instance holds no more connections than it is configured for.
pub(super) fn shares(backend: Backend, max_connections: u32) -> (u32, u32) {
    match backend {
        Backend::Postgres if max_connections >= 2 => {
            (max_connections - max_connections / 2, max_connections / 2)
        }
        _ => (max_connections, 0),
    }
}

/// A pool of at most `max_connections` for page reads on PostgreSQL, named
/// `application_name` when given; `None` for no connection (page reads then share the main
/// pool). It connects lazily: a connection is opened by the first page read that needs it.
pub(super) async fn page_pool(
    config: &DbConfig,
    max_connections: u32,
    application_name: Option<&'static str>,
) -> Result<Option<DatabaseConnection>, DbError> {
    if max_connections == 0 {
        return Ok(None);
    }
    let mut opts: ConnectOptions = options(config, Backend::Postgres, max_connections, move |o| {
        let o = o.options([GENERIC_PLANS]);
        match application_name {
            Some(name) => o.application_name(name),
            None => o,
        }
    });
    opts.connect_lazy(true);
    Ok(Some(Database::connect(opts).await?))
}

#[cfg(feature = "test-support")]
impl super::Db {
    /// This handle as page reads see the database: on their own pool's connections.
    ///
    /// Exists for the tests and benchmarks (feature `test-support`).
    pub fn as_page_reads(&self) -> Self {
        let mut db = self.clone();
        if let Some(pages) = &self.pages {
            db.conn = pages.clone();
        }
        db
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_reads_take_half_of_the_connections_on_postgresql_only() {
        assert_eq!(shares(Backend::Postgres, 16), (8, 8));
        assert_eq!(shares(Backend::Postgres, 7), (4, 3));
        assert_eq!(shares(Backend::Postgres, 2), (1, 1));
        assert_eq!(shares(Backend::Postgres, 1), (1, 0));
        assert_eq!(shares(Backend::Sqlite, 16), (16, 0));
    }
}
