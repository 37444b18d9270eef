//! `graphpay key`: issue, restrict, revoke, roll and list an account's API keys.

use std::io::Write;

use clap::Subcommand;

use super::open;
use crate::config::DatabaseArgs;
use crate::domain::account::{self, MAX_ROLL_OVERLAP_SECS};
use crate::domain::scope::{Scope, Scopes};
use crate::domain::time::Timestamp;
use crate::persistence::accounts::{self, KeyGrant};

#[derive(Subcommand, Debug)]
pub enum KeyCommand {
    /// Issue a new API key for an account (shown only this once).
    Create {
        #[arg(long)]
        account: String,
        /// What the key is for (1 to 100 characters).
        #[arg(long)]
        name: Option<String>,
        /// Restrict the key to these scopes, comma-separated: PAYMENTS_READ, PAYMENTS_WRITE,
        /// REFUNDS_WRITE, PAYMENTS_CAPTURE, WEBHOOKS_MANAGE, CLIENT_TOKENS_CREATE. Without
        /// it the key is unrestricted.
        #[arg(long, value_delimiter = ',', value_parser = parse_scope)]
        scopes: Option<Vec<Scope>>,
        /// Print exactly `{"keyId": "...", "apiKey": "..."}`.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Revoke a key, named by its id (`key_...`) or its visible prefix.
    Revoke {
        key: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Issue a successor to a key (named by its id or visible prefix), with the same name and
    /// scopes, shown only this once; the old key keeps working for `--expire-old-in` seconds
    /// (at once by default, at most 7 days).
    Roll {
        key: String,
        #[arg(long, default_value_t = 0)]
        expire_old_in: i64,
        /// Print exactly `{"keyId": "...", "apiKey": "...", "oldKeyExpiresAt": "..."}`.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// List an account's keys (prefixes only; secrets are never stored): id, prefix, state,
    /// created, last used, expires, scopes (`*` for unrestricted), name.
    List {
        #[arg(long)]
        account: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

fn parse_scope(name: &str) -> Result<Scope, String> {
    Scope::parse(name.trim()).ok_or_else(|| {
        let known: Vec<_> = Scope::ALL.iter().map(|s| s.as_str()).collect();
        format!(
            "unknown scope {name:?}; the scopes are {}",
            known.join(", ")
        )
    })
}

pub(super) async fn run(command: KeyCommand) -> Result<(), String> {
    match command {
        KeyCommand::Create {
            account,
            name,
            scopes,
            json,
            database,
        } => {
            let name = name.as_deref().map(account::key_name).transpose()?;
            let scopes = match scopes {
                Some(scopes) if scopes.is_empty() => {
                    return Err("--scopes must name at least one scope".into());
                }
                Some(scopes) => Some(scopes.into_iter().collect::<Scopes>()),
                None => None,
            };
            let db = open(&database).await?;
            let (key, secret) = accounts::create_key(&db, &account, KeyGrant { name, scopes })
                .await
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("no account {account}"))?;
            if json {
                println!("{}", serde_json::json!({"keyId": key.id, "apiKey": secret}));
            } else {
                println!("key: {}", key.id);
                println!("api key: {secret}");
            }
            Ok(())
        }
        KeyCommand::Revoke { key, database } => {
            let db = open(&database).await?;
            let revoked = accounts::revoke_key(&db, &key)
                .await
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("no single key with id or prefix {key}"))?;
            println!("revoked: {} ({})", revoked.id, revoked.prefix);
            Ok(())
        }
        KeyCommand::Roll {
            key,
            expire_old_in,
            json,
            database,
        } => roll(&key, expire_old_in, json, &database).await,
        KeyCommand::List { account, database } => {
            let db = open(&database).await?;
            let keys = accounts::list_keys(&db, &account)
                .await
                .map_err(|e| e.to_string())?;
            let now = Timestamp::now();
            let when =
                |at: Option<Timestamp>| at.map_or_else(|| "-".to_string(), |t| t.to_rfc3339());
            let mut out = std::io::stdout().lock();
            for key in keys {
                let scopes = key
                    .scopes
                    .map_or_else(|| "*".to_string(), Scopes::to_stored);
                let _ = writeln!(
                    out,
                    "{}\t{}\t{}\t{}\t{}\t{}\t{scopes}\t{}",
                    key.id,
                    key.prefix,
                    key.state(now),
                    key.created_at.to_rfc3339(),
                    when(key.last_used_at),
                    when(key.expires_at),
                    key.name.as_deref().unwrap_or("-"),
                );
            }
            Ok(())
        }
    }
}

async fn roll(
    key: &str,
    expire_old_in: i64,
    json: bool,
    database: &DatabaseArgs,
) -> Result<(), String> {
    if !(0..=MAX_ROLL_OVERLAP_SECS).contains(&expire_old_in) {
        return Err(format!(
            "--expire-old-in must be between 0 and {MAX_ROLL_OVERLAP_SECS} seconds (7 days)"
        ));
    }
    let db = open(database).await?;
    let rolled = accounts::roll_key(&db, key, None, expire_old_in, Timestamp::now())
        .await
        .map_err(|e| e.to_string())?
        .map_err(|refused| match refused {
            accounts::RollRefused::NotFound => format!("no single key with id or prefix {key}"),
            accounts::RollRefused::NotLive => format!("key {key} is revoked or expired"),
        })?;
    let expires = rolled
        .old_key
        .expires_at
        .map(Timestamp::to_rfc3339)
        .unwrap_or_default();
    if json {
        println!(
            "{}",
            serde_json::json!({"keyId": rolled.new_key.id, "apiKey": rolled.secret,
                "oldKeyExpiresAt": expires})
        );
    } else {
        println!("key: {}", rolled.new_key.id);
        println!("api key: {}", rolled.secret);
        println!("old key {} stops working at {expires}", rolled.old_key.id);
        eprintln!("keep the API key now: it is not stored and cannot be shown again");
    }
    Ok(())
}
