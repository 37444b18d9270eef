//! Counts of each account's payments by status, so that `totalCount` is exact without
//! counting rows.
//!
//! Triggers on `payments` keep `payment_counts` in step with every insert, status change and
//! delete, in the same transaction as the change itself, whichever code made it. On
//! PostgreSQL an account's count for a status is spread over 16 rows (`bucket`), chosen by
//! the writing connection's backend process: concurrent creates of one account then update
//! different rows and do not wait on one another, as they would on a single counter row. A
//! bucket may go negative (a payment counted in one bucket can leave its status through
//! another); only the sum is meaningful, and it is exact. A status change touches the rows
//! of its two statuses in name order, so two transactions never wait on each other in a
//! cycle. SQLite has one writer at a time and one bucket. The function keeps the schema it was
//! created in (`SET search_path FROM CURRENT`), whatever the writing session's search path.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

pub(crate) const PG_FUNCTION: &str = r#"
CREATE FUNCTION graphpay_count_payments() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $body$
DECLARE
    b SMALLINT := pg_backend_pid() % 16;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO payment_counts AS c (account_id, status, bucket, count)
        VALUES (NEW.account_id, NEW.status, b, 1)
        ON CONFLICT (account_id, status, bucket) DO UPDATE SET count = c.count + 1;
        RETURN NULL;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO payment_counts AS c (account_id, status, bucket, count)
        VALUES (OLD.account_id, OLD.status, b, -1)
        ON CONFLICT (account_id, status, bucket) DO UPDATE SET count = c.count - 1;
        RETURN NULL;
    END IF;
    IF NEW.status IS NOT DISTINCT FROM OLD.status THEN
        RETURN NULL;
    END IF;
    INSERT INTO payment_counts AS c (account_id, status, bucket, count)
    SELECT NEW.account_id, s.status, b, s.delta
    FROM (VALUES (OLD.status, -1), (NEW.status, 1)) AS s (status, delta)
    ORDER BY s.status COLLATE "C"
    ON CONFLICT (account_id, status, bucket) DO UPDATE SET count = c.count + EXCLUDED.count;
    RETURN NULL;
END
$body$"#;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        let pg = manager.get_database_backend() == DbBackend::Postgres;
        let c = if pg { " COLLATE \"C\"" } else { "" };
        let mut statements = vec![
            format!(
                "CREATE TABLE payment_counts (
                    account_id TEXT{c} NOT NULL,
                    status TEXT{c} NOT NULL,
                    bucket SMALLINT NOT NULL,
                    count BIGINT NOT NULL,
                    PRIMARY KEY (account_id, status, bucket))"
            ),
            "INSERT INTO payment_counts (account_id, status, bucket, count) \
             SELECT account_id, status, 0, COUNT(*) FROM payments GROUP BY account_id, status"
                .to_string(),
        ];
        if pg {
            statements.extend([
                PG_FUNCTION.to_string(),
                "CREATE TRIGGER payments_counted AFTER INSERT OR DELETE OR UPDATE OF status \
                 ON payments FOR EACH ROW EXECUTE FUNCTION graphpay_count_payments()"
                    .to_string(),
            ]);
        } else {
            let upsert = |account: &str, status: &str, delta: i32| {
                format!(
                    "INSERT INTO payment_counts (account_id, status, bucket, count) \
                     VALUES ({account}, {status}, 0, {delta}) \
                     ON CONFLICT (account_id, status, bucket) \
                     DO UPDATE SET count = count + excluded.count;"
                )
            };
            statements.extend([
                format!(
                    "CREATE TRIGGER payments_counted_insert AFTER INSERT ON payments \
                     BEGIN {} END",
                    upsert("NEW.account_id", "NEW.status", 1)
                ),
                format!(
                    "CREATE TRIGGER payments_counted_delete AFTER DELETE ON payments \
                     BEGIN {} END",
                    upsert("OLD.account_id", "OLD.status", -1)
                ),
                format!(
                    "CREATE TRIGGER payments_counted_update AFTER UPDATE OF status ON payments \
                     WHEN NEW.status IS NOT OLD.status BEGIN {} {} END",
                    upsert("OLD.account_id", "OLD.status", -1),
                    upsert("NEW.account_id", "NEW.status", 1)
                ),
            ]);
        }
        for statement in statements {
            conn.execute_unprepared(&statement).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let conn = manager.get_connection();
        let statements: &[&str] = if manager.get_database_backend() == DbBackend::Postgres {
            &[
                "DROP TRIGGER payments_counted ON payments",
                "DROP FUNCTION graphpay_count_payments()",
                "DROP TABLE payment_counts",
            ]
        } else {
            &[
                "DROP TRIGGER payments_counted_insert",
                "DROP TRIGGER payments_counted_delete",
                "DROP TRIGGER payments_counted_update",
                "DROP TABLE payment_counts",
            ]
        };
        for statement in statements {
            conn.execute_unprepared(statement).await?;
        }
        Ok(())
    }
}
