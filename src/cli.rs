//! The `graphpay` command line: serve, migrate, print the schema, manage accounts and keys.

use std::io::Write;

use clap::{Parser, Subcommand};

use crate::config::{DatabaseArgs, SandboxArgs, SecretsKey, ServeArgs};
use crate::domain::account::MAX_ROLL_OVERLAP_SECS;
use crate::domain::sealed::Sealer;
use crate::domain::time::Timestamp;
use crate::persistence::{Db, accounts, sealing, signing_keys};
use crate::sandbox::SandboxApp;
use crate::telemetry::LogFormat;
use crate::{graphql, startup};

#[derive(Parser, Debug)]
#[command(name = "graphpay", version, about = "A GraphQL payments gateway")]
pub struct Cli {
    /// Log format: `pretty` for people, `json` for log collectors. `RUST_LOG` sets the filter.
    #[arg(
        long,
        global = true,
        env = "LOG_FORMAT",
        value_enum,
        default_value = "pretty"
    )]
    pub log_format: LogFormat,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the gateway (migrates the database first).
    Serve(Box<ServeArgs>),
    /// Apply pending database migrations and exit.
    Migrate(DatabaseArgs),
    /// Print the GraphQL schema (SDL), as committed in schema.graphql.
    Schema,
    /// Manage accounts.
    #[command(subcommand)]
    Account(AccountCommand),
    /// Manage API keys.
    #[command(subcommand)]
    Key(KeyCommand),
    /// Manage the gateway's signing secrets (cursors, client tokens).
    #[command(subcommand)]
    SigningKey(SigningKeyCommand),
    /// Manage the key that seals secrets at rest.
    #[command(subcommand)]
    Secrets(SecretsCommand),
    /// Run the sandbox processor as its own HTTP service.
    Sandbox(SandboxArgs),
}

#[derive(Subcommand, Debug)]
pub enum SecretsCommand {
    /// Print a new random secrets key (standard base64 of 32 bytes), for
    /// `GRAPHPAY_SECRETS_KEY_FILE`.
    NewKey,
    /// Seal every stored secret under a new key: each is opened with the current key (the
    /// usual `--secrets-key` / `--secrets-key-file`; none: secrets in the clear) and sealed
    /// with the one in `--new-key-file`, in one transaction. Stop the gateways first, and
    /// start them with the new key.
    Reencrypt {
        #[arg(long)]
        new_key_file: std::path::PathBuf,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

#[derive(Subcommand, Debug)]
pub enum SigningKeyCommand {
    /// Add a secret. Every instance verifies with it within a second; it signs once it is
    /// ten seconds old, so no instance meets something it signed before knowing it.
    Add {
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// List the secrets (never the secrets themselves): key id, state, created, retired.
    List {
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Retire a secret: what it signed (cursors, client tokens) stops being accepted on every
    /// instance within a second. The last live secret cannot be retired.
    Retire {
        kid: u16,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

#[derive(Subcommand, Debug)]
pub enum AccountCommand {
    /// Create an account and print its id and first API key (shown only this once).
    Create {
        #[arg(long)]
        name: String,
        /// Print exactly `{"accountId": "...", "apiKey": "..."}`.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

#[derive(Subcommand, Debug)]
pub enum KeyCommand {
    /// Issue a new API key for an account (shown only this once).
    Create {
        #[arg(long)]
        account: String,
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
    /// Issue a successor to a key (named by its id or visible prefix), shown only this once;
    /// the old key keeps working for `--expire-old-in` seconds (at once by default, at most
    /// 7 days).
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
    /// created, last used, expires.
    List {
        #[arg(long)]
        account: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

/// Runs a parsed command line; the error is printed by `main`.
pub async fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Serve(args) => startup::serve((*args).into())
            .await
            .map_err(|e| e.to_string()),
        Command::Migrate(database) => {
            Db::migrate(&database.db_config())
                .await
                .map_err(|e| e.to_string())?;
            eprintln!("migrations applied");
            Ok(())
        }
        Command::Sandbox(args) => {
            let app = SandboxApp::build(args.config()?)
                .await
                .map_err(|e| e.to_string())?;
            println!("sandbox processor listening on http://{}", app.local_addr());
            app.run_until(startup::shutdown_signal())
                .await
                .map_err(|e| e.to_string())
        }
        Command::Schema => {
            print!("{}", graphql::sdl());
            Ok(())
        }
        Command::Account(AccountCommand::Create {
            name,
            json,
            database,
        }) => {
            let name = name.trim();
            if name.is_empty() || name.len() > 200 {
                return Err("--name must be 1 to 200 characters".into());
            }
            let db = open(&database).await?;
            let created = accounts::create(&db, name)
                .await
                .map_err(|e| e.to_string())?;
            if json {
                let out =
                    serde_json::json!({"accountId": created.account.id, "apiKey": created.api_key});
                println!("{out}");
            } else {
                println!("account: {}", created.account.id);
                println!("api key: {}", created.api_key);
                eprintln!("keep the API key now: it is not stored and cannot be shown again");
            }
            Ok(())
        }
        Command::Key(KeyCommand::Create {
            account,
            json,
            database,
        }) => {
            let db = open(&database).await?;
            let (key, secret) = accounts::create_key(&db, &account)
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
        Command::Key(KeyCommand::Revoke { key, database }) => {
            let db = open(&database).await?;
            let revoked = accounts::revoke_key(&db, &key)
                .await
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("no single key with id or prefix {key}"))?;
            println!("revoked: {} ({})", revoked.id, revoked.prefix);
            Ok(())
        }
        Command::SigningKey(command) => signing_key(command).await,
        Command::Secrets(SecretsCommand::NewKey) => {
            println!("{}", Sealer::generate_key());
            Ok(())
        }
        Command::Secrets(SecretsCommand::Reencrypt {
            new_key_file,
            database,
        }) => {
            let to = SecretsKey::File(new_key_file).sealer()?;
            let db = open(&database).await?;
            let from = db.sealer().clone();
            let written = sealing::reseal(&db, &from, &to, true)
                .await
                .map_err(|e| e.to_string())?;
            println!("sealed {written} secrets under the new key");
            Ok(())
        }
        Command::Key(KeyCommand::Roll {
            key,
            expire_old_in,
            json,
            database,
        }) => roll_key(&key, expire_old_in, json, &database).await,
        Command::Key(KeyCommand::List { account, database }) => {
            let db = open(&database).await?;
            let keys = accounts::list_keys(&db, &account)
                .await
                .map_err(|e| e.to_string())?;
            let now = Timestamp::now();
            let when =
                |at: Option<Timestamp>| at.map_or_else(|| "-".to_string(), |t| t.to_rfc3339());
            let mut out = std::io::stdout().lock();
            for key in keys {
                let _ = writeln!(
                    out,
                    "{}\t{}\t{}\t{}\t{}\t{}",
                    key.id,
                    key.prefix,
                    key.state(now),
                    key.created_at.to_rfc3339(),
                    when(key.last_used_at),
                    when(key.expires_at)
                );
            }
            Ok(())
        }
    }
}

async fn signing_key(command: SigningKeyCommand) -> Result<(), String> {
    match command {
        SigningKeyCommand::Add { database } => {
            let db = open(&database).await?;
            signing_keys::all_or_first(&db, startup::random_secret)
                .await
                .map_err(|e| e.to_string())?;
            let key = signing_keys::add(&db, startup::random_secret)
                .await
                .map_err(|e| e.to_string())?;
            println!("added signing key {}", key.kid);
            Ok(())
        }
        SigningKeyCommand::List { database } => {
            let db = open(&database).await?;
            let keys = signing_keys::all(&db).await.map_err(|e| e.to_string())?;
            let mut out = std::io::stdout().lock();
            for key in keys {
                let state = if key.retired_at.is_some() {
                    "retired"
                } else {
                    "live"
                };
                let retired = key
                    .retired_at
                    .map_or_else(|| "-".to_string(), |t| t.to_rfc3339());
                let _ = writeln!(
                    out,
                    "{}\t{state}\t{}\t{retired}",
                    key.kid,
                    key.created_at.to_rfc3339()
                );
            }
            Ok(())
        }
        SigningKeyCommand::Retire { kid, database } => {
            let db = open(&database).await?;
            match signing_keys::retire(&db, kid)
                .await
                .map_err(|e| e.to_string())?
            {
                Ok(_) => {
                    println!("retired signing key {kid}");
                    Ok(())
                }
                Err(signing_keys::RetireRefused::NotFound) => Err(format!("no signing key {kid}")),
                Err(signing_keys::RetireRefused::LastLive) => Err(format!(
                    "signing key {kid} is the only live one; add another first"
                )),
            }
        }
    }
}

async fn roll_key(
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

async fn open(database: &DatabaseArgs) -> Result<Db, String> {
    let config = database.db_config();
    let sealer = database.secrets_key().sealer()?;
    Db::migrate(&config).await.map_err(|e| e.to_string())?;
    Ok(Db::connect(&config)
        .await
        .map_err(|e| e.to_string())?
        .with_sealer(sealer))
}
