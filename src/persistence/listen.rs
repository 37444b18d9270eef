//! PostgreSQL notifications, heard on a connection of their own.

use std::time::Duration;

use super::DbError;

/// Listens on a PostgreSQL notification channel until the connection fails for good, calling
/// `on_message` for each notification. The connection is named `application_name`; the
/// listener reconnects by itself after a dropped connection, and returns an error when it
/// cannot.
pub async fn listen(
    url: &str,
    application_name: &str,
    channel: &str,
    mut on_message: impl FnMut(),
) -> Result<(), DbError> {
    use sea_orm::sqlx::postgres::{PgConnectOptions, PgListener, PgPoolOptions};
    use std::str::FromStr;
    let unavailable = |e: sea_orm::sqlx::Error| DbError::Unavailable(format!("listen: {e}"));
    let options =
        super::db::tls_as_needed(url, PgConnectOptions::from_str(url).map_err(unavailable)?)
            .application_name(application_name);
    let pool = PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(Duration::from_secs(5))
        .max_lifetime(None)
        .idle_timeout(None)
        .connect_with(options)
        .await
        .map_err(unavailable)?;
    let mut listener = PgListener::connect_with(&pool).await.map_err(unavailable)?;
    listener.listen(channel).await.map_err(unavailable)?;
    loop {
        listener.recv().await.map_err(unavailable)?;
        on_message();
    }
}
