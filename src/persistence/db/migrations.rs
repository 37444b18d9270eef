//! Migrating the database: every pending migration applied, one instance at a time.

use migration::{Migrator, MigratorTrait};
use sea_orm::{ConnectionTrait, Database, DbBackend, Statement};

use super::{Backend, Db, DbConfig, backend_of, create_schema, options};
use crate::persistence::DbError;

/// A PostgreSQL advisory lock key taken while migrating, so instances starting together
/// migrate one after the other.
const MIGRATION_LOCK_KEY: i64 = 0x6770_6179_6d69_6772;

impl Db {
    /// Applies every pending migration. On PostgreSQL, concurrent callers wait on an advisory
    /// lock held on a dedicated connection that also runs the migrations.
    #[tracing::instrument(skip_all)]
    pub async fn migrate(config: &DbConfig) -> Result<(), DbError> {
        let backend = backend_of(&config.url)?;
        if let (Backend::Postgres, Some(schema)) = (backend, &config.schema) {
            create_schema(config, schema).await?;
        }
        let conn = Database::connect(options(config, backend, 1, |o| o)).await?;
        let lock = |sql: &str| Statement::from_string(DbBackend::Postgres, sql.to_string());
        if backend == Backend::Postgres {
            conn.execute_raw(lock(&format!(
                "SELECT pg_advisory_lock({MIGRATION_LOCK_KEY})"
            )))
            .await?;
        }
        let result = Migrator::up(&conn, None).await;
        if backend == Backend::Postgres {
            conn.execute_raw(lock(&format!(
                "SELECT pg_advisory_unlock({MIGRATION_LOCK_KEY})"
            )))
            .await?;
        }
        conn.close().await?;
        Ok(result?)
    }

    /// Undoes the newest `steps` migrations (to test a migration's treatment of existing rows).
    ///
    /// Exists for the tests and benchmarks (feature `test-support`).
    #[cfg(feature = "test-support")]
    pub async fn undo_migrations(&self, steps: u32) -> Result<(), DbError> {
        Migrator::down(&self.conn, Some(steps)).await?;
        Ok(())
    }
}
