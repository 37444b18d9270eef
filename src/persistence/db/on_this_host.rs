//! A PostgreSQL server on this host: told from its URL, and reached without TLS unless asked.
//!
//! Left to itself the driver tries TLS first (`sslmode=prefer`, libpq's default) and takes it
//! whenever the server offers it, without checking the server's certificate. That guards
//! against someone reading the traffic on the way, never against someone posing as the
//! server. To a server on this host (a loopback address) the traffic never leaves this host's
//! kernel, where only the superuser can read it, and the superuser can read the gateway's
//! memory too: TLS guards nothing there, and costs every statement encryption, decryption and
//! extra copies (measured: a tenth of the gateway's CPU per page read). So, to a server on
//! this host, and only when neither the URL (`sslmode`) nor the environment (`PGSSLMODE`)
//! says how, the gateway connects without TLS. Any stated `sslmode` is followed as given.

use sea_orm::sqlx::postgres::{PgConnectOptions, PgSslMode};

use super::{Backend, backend_of};

/// Whether `url` names a database server on this host, whose processes share its CPU cores
/// with the gateway: PostgreSQL over a Unix socket or at a loopback address. SQLite runs in
/// the gateway's own threads and is not one. A host name other than `localhost` is not looked
/// up, so it counts as another host.
pub fn server_on_this_host(url: &str) -> bool {
    if !matches!(backend_of(url), Ok(Backend::Postgres)) {
        return false;
    }
    let Ok(url) = url::Url::parse(url) else {
        return false;
    };
    let socket_dir = url
        .query_pairs()
        .any(|(name, value)| name == "host" && value.starts_with('/'));
    if socket_dir {
        return true;
    }
    match url.host() {
        None => true,
        // A `postgres:` URL's host is not parsed as an address: it comes as a name.
        Some(url::Host::Domain(name)) => {
            name.eq_ignore_ascii_case("localhost")
                || name.starts_with("%2F")
                || name
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
    }
}

/// Whether a connection to `url` goes without TLS though the driver would try it: a server on
/// this host, with no `sslmode` in the URL and none in `environment_sslmode` (`PGSSLMODE`).
fn plain(url: &str, environment_sslmode: Option<&str>) -> bool {
    let stated_in_url = url::Url::parse(url).is_ok_and(|parsed| {
        parsed
            .query_pairs()
            .any(|(name, _)| name == "sslmode" || name == "ssl-mode")
    });
    server_on_this_host(url) && !stated_in_url && environment_sslmode.is_none()
}

/// Whether the gateway reaches `url` without TLS though the driver would try it (see the
/// module's notes), with `PGSSLMODE` as this process's environment has it.
pub fn without_tls(url: &str) -> bool {
    plain(url, std::env::var("PGSSLMODE").ok().as_deref())
}

/// `options`, the driver's settings for `url`, with TLS off where [`without_tls`] says so.
pub(crate) fn tls_as_needed(url: &str, options: PgConnectOptions) -> PgConnectOptions {
    if without_tls(url) {
        options.ssl_mode(PgSslMode::Disable)
    } else {
        options
    }
}

#[cfg(test)]
mod tests {
    use super::{plain, server_on_this_host};

    #[test]
    fn a_database_server_on_this_host_is_told_from_one_elsewhere() {
        for here in [
            "postgres://postgres@127.0.0.1:5432/test",
            "postgres://postgres@127.9.9.9/test",
            "postgresql://app@localhost/payments",
            "postgres://app@LOCALHOST:5433/payments",
            "postgres://app@[::1]:5432/payments",
            "postgres:///payments",
            "postgres://app@%2Fvar%2Frun%2Fpostgresql/payments",
            "postgres://app@db.internal/payments?host=/var/run/postgresql",
        ] {
            assert!(server_on_this_host(here), "{here} is on this host");
        }
        for elsewhere in [
            "postgres://app@db.internal:5432/payments",
            "postgres://app@10.0.0.7/payments",
            "postgres://app@[2001:db8::1]/payments",
            "postgres://app@localhost.example.com/payments",
            "not a url",
            // In the process, not a server of its own.
            "sqlite://graphpay.db?mode=rwc",
            "sqlite::memory:",
        ] {
            assert!(!server_on_this_host(elsewhere), "{elsewhere} is elsewhere");
        }
    }

    #[test]
    fn only_a_server_on_this_host_with_no_stated_sslmode_goes_without_tls() {
        assert!(plain("postgres://postgres@127.0.0.1:5432/test", None));
        assert!(plain(
            "postgres://app@localhost/payments?application_name=x",
            None
        ));
        for stated in [
            "postgres://postgres@127.0.0.1:5432/test?sslmode=prefer",
            "postgres://postgres@127.0.0.1:5432/test?sslmode=require",
            "postgres://postgres@localhost/test?ssl-mode=verify-full",
        ] {
            assert!(!plain(stated, None), "{stated} says how");
        }
        assert!(!plain(
            "postgres://postgres@127.0.0.1/test",
            Some("require")
        ));
        assert!(!plain("postgres://app@db.internal:5432/payments", None));
        assert!(!plain("sqlite://graphpay.db?mode=rwc", None));
    }
}
