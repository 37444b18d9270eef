//! The `graphpay` command line: serve, migrate, print the schema, manage accounts and keys.

use std::io::Write;

use clap::{Parser, Subcommand};

mod keys;

pub use keys::KeyCommand;

use crate::config::{DatabaseArgs, SandboxArgs, SecretsKey, ServeArgs};
use crate::domain::sealed::Sealer;
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

/// The runtime a command runs on: as many threads as `serve --worker-threads` asks for;
/// unset, one per CPU core, as for every other command.
pub fn runtime(cli: &Cli) -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all();
    if let Command::Serve(args) = &cli.command {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        builder.worker_threads(args.worker_threads.map_or(cores, usize::from));
    }
    builder.build()
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
        Command::Key(command) => keys::run(command).await,
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

pub(crate) async fn open(database: &DatabaseArgs) -> Result<Db, String> {
    let config = database.db_config();
    let sealer = database.secrets_key().sealer()?;
    Db::migrate(&config).await.map_err(|e| e.to_string())?;
    Ok(Db::connect(&config)
        .await
        .map_err(|e| e.to_string())?
        .with_sealer(sealer))
}
