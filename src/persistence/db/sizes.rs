//! How many connections the gateway's pools hold, for the metrics.

use sea_orm::{DatabaseConnection, DatabaseConnectionType};

use super::Db;

/// How many connections the pools hold now, and may hold at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolSizes {
    pub idle: u32,
    pub in_use: u32,
    pub max: u32,
}

impl Db {
    /// The pools' connections now, page reads' own included (for metrics); `None` once the
    /// pool is closed.
    pub fn pool_sizes(&self) -> Option<PoolSizes> {
        let sizes = |conn: &DatabaseConnection| match &conn.inner {
            DatabaseConnectionType::SqlxSqlitePoolConnection(_) => {
                Some(pool_sizes(conn.get_sqlite_connection_pool()))
            }
            DatabaseConnectionType::SqlxPostgresPoolConnection(_) => {
                Some(pool_sizes(conn.get_postgres_connection_pool()))
            }
            _ => None,
        };
        let main = sizes(&self.conn)?;
        Some(match self.pages.as_ref().and_then(sizes) {
            Some(pages) => PoolSizes {
                idle: main.idle + pages.idle,
                in_use: main.in_use + pages.in_use,
                max: main.max + pages.max,
            },
            None => main,
        })
    }
}

fn pool_sizes<D: sea_orm::sqlx::Database>(pool: &sea_orm::sqlx::Pool<D>) -> PoolSizes {
    let total = pool.size();
    let idle = u32::try_from(pool.num_idle())
        .unwrap_or(u32::MAX)
        .min(total);
    PoolSizes {
        idle,
        in_use: total - idle,
        max: pool.options().get_max_connections(),
    }
}
