//! Keyset pagination versus OFFSET at increasing depth, on SQLite and PostgreSQL.
//!
//! Seeds one account with `BENCH_ROWS` payments (plus a second account with ~1% as many, so the
//! indexes hold other accounts' rows too), with many ties on both sort keys, then for each order
//! and depth times the keyset page (`payment_pages::fetch`, `first: 50` after the cursor of the
//! row just before that depth) and the OFFSET page (`offset_page_for_benchmark`), checking both
//! return the same 50 ids. Prints a Markdown table on stdout; progress goes to stderr.
//!
//! Environment:
//! - `BENCH_ROWS` (default 1000000): payments of the measured account.
//! - `BENCH_DATABASES` (default `sqlite,postgres`).
//! - `BENCH_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/test`); a fresh schema
//!   `bench_pages_<random>` is created there and dropped at the end.
//! - `BENCH_REPEATS` (default 20): timed OFFSET runs per cell (after one untimed warm-up).
//! - `BENCH_KEYSET_ROUNDS` (default 1000): timed runs of each keyset page. The keyset pages
//!   of one order (every depth and the depth-1 control) are timed in rounds, one run of each
//!   per round, starting at a different page each round, so that drift over time (caches,
//!   clock, other work) weighs on every depth alike instead of on whichever ran last.
//!
//! Run with `cargo bench --bench pagination`.

use std::time::{Duration, Instant};

use graphpay::domain::currency::Currency;
use graphpay::domain::money::MinorUnits;
use graphpay::domain::paging::{Direction, Order, PageSize, PaymentFilter, Position, SortField};
use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::accounts;
use graphpay::persistence::payment_pages::{
    PageQuery, PaymentColumns, exists_behind, fetch, offset_page_for_benchmark, page_sql, sort_key,
};
use graphpay::persistence::payments::{NewPayment, insert_many};
use graphpay::persistence::{Backend, Db, DbConfig};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const PAGE: u64 = 50;
const DEPTHS: [u64; 4] = [0, 10_000, 100_000, 900_000];
/// 2026-01-01T00:00:00Z in microseconds.
const BASE_MICROS: i64 = 1_767_225_600_000_000;
/// Rows handed to `insert_many` per call (it commits every 500 internally).
const SEED_BATCH: u64 = 50_000;

struct Settings {
    rows: u64,
    databases: Vec<String>,
    postgres_url: String,
    repeats: usize,
    keyset_rounds: usize,
}

impl Settings {
    fn from_env() -> Result<Self, BoxError> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let rows = match var("BENCH_ROWS") {
            Some(v) => v.trim().replace('_', "").parse()?,
            None => 1_000_000,
        };
        let repeats = match var("BENCH_REPEATS") {
            Some(v) => v.trim().parse()?,
            None => 20,
        };
        if repeats == 0 {
            return Err("BENCH_REPEATS must be at least 1".into());
        }
        let keyset_rounds = match var("BENCH_KEYSET_ROUNDS") {
            Some(v) => v.trim().parse()?,
            None => 1000,
        };
        if keyset_rounds == 0 {
            return Err("BENCH_KEYSET_ROUNDS must be at least 1".into());
        }
        let databases = var("BENCH_DATABASES")
            .unwrap_or_else(|| "sqlite,postgres".to_string())
            .split(',')
            .map(|s| s.trim().to_ascii_lowercase())
            .filter(|s| !s.is_empty())
            .collect();
        let postgres_url = var("BENCH_POSTGRES_URL")
            .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/test".to_string());
        Ok(Self {
            rows,
            databases,
            postgres_url,
            repeats,
            keyset_rounds,
        })
    }
}

/// One line of the results table.
struct Row {
    database: &'static str,
    order: &'static str,
    depth: u64,
    keyset_median: f64,
    keyset_p95: f64,
    keyset_ratio: f64,
    offset_median: f64,
    offset_ratio: f64,
    /// The page plus the `hasPreviousPage` probe, as a client selecting that flag pays.
    with_probe_median: f64,
}

/// A control line: the keyset page just after the first row (depth 1), which pays for a cursor
/// (the `hasPreviousPage` probe) but not for depth. Not part of the main table or its ratios.
struct Control {
    database: &'static str,
    order: &'static str,
    keyset_median: f64,
    keyset_p95: f64,
    keyset_ratio: f64,
}

/// Times `fetch` of every query in `queries`, `rounds` times each, interleaved: each round
/// runs every query once, starting one further along than the round before. With `probe`,
/// each run also makes the `hasPreviousPage` probe. One untimed warm-up round first.
async fn time_keyset_rounds(
    db: &Db,
    queries: &[PageQuery],
    rounds: usize,
    probe: bool,
) -> Result<Vec<Vec<Duration>>, BoxError> {
    let n = queries.len();
    let mut samples = vec![Vec::with_capacity(rounds); n];
    for round in 0..=rounds {
        for i in 0..n {
            let at = (i + round) % n;
            let started = Instant::now();
            let page = fetch(db, &queries[at]).await?;
            let behind = if probe {
                Some(exists_behind(db, &queries[at]).await?)
            } else {
                None
            };
            let took = started.elapsed();
            std::hint::black_box((page, behind));
            if round > 0 {
                samples[at].push(took);
            }
        }
    }
    Ok(samples)
}

/// The cursor of the row at `offset`, as a client would hold it.
async fn cursor_at(
    db: &Db,
    account_id: &str,
    order: Order,
    offset: u64,
) -> Result<Position, BoxError> {
    let rows = offset_page_for_benchmark(db, account_id, order, offset, 1).await?;
    let row = rows.first().ok_or("no row at that offset")?;
    Ok(Position {
        key: sort_key(row, order.field),
        id: row.id.clone(),
    })
}

/// Median and nearest-rank p95 of the samples, in milliseconds.
fn summarize(samples: &mut [Duration]) -> (f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1_000.0;
    let n = samples.len();
    let median = if n % 2 == 1 {
        ms(samples[n / 2])
    } else {
        (ms(samples[n / 2 - 1]) + ms(samples[n / 2])) / 2.0
    };
    let rank = ((0.95 * n as f64).ceil() as usize).clamp(1, n);
    (median, ms(samples[rank - 1]))
}

fn order_name(order: Order) -> &'static str {
    match (order.field, order.direction) {
        (SortField::CreatedAt, Direction::Desc) => "CREATED_AT DESC",
        (SortField::CreatedAt, Direction::Asc) => "CREATED_AT ASC",
        (SortField::Amount, Direction::Desc) => "AMOUNT DESC",
        (SortField::Amount, Direction::Asc) => "AMOUNT ASC",
    }
}

fn new_payment(account_id: &str, i: u64) -> NewPayment {
    let i = i as i64;
    NewPayment {
        account_id: account_id.to_string(),
        // 5,000 distinct amounts: ~200 rows share each value at 1M rows.
        amount: MinorUnits::parse(100 + (i * 7919) % 5000).expect("an amount"),
        currency: Currency::parse("USD").expect("a currency"),
        source: "tok_visa".to_string(),
        description: None,
        reference: None,
        metadata: Default::default(),
        status: PaymentStatus::Succeeded,
        // Three rows share each timestamp; 1 ms apart.
        capture_method: Default::default(),
        return_url: None,
        created_at: Timestamp::from_micros(BASE_MICROS + (i / 3) * 1000),
    }
}

/// `rows` payments for `main`, and one for `other` after every 100th, interleaved.
async fn seed(db: &Db, main: &str, other: &str, rows: u64) -> Result<(), BoxError> {
    let started = Instant::now();
    let mut done = 0u64;
    let mut others = 0u64;
    while done < rows {
        let end = (done + SEED_BATCH).min(rows);
        let mut batch = Vec::with_capacity((end - done) as usize + (SEED_BATCH / 100) as usize);
        for i in done..end {
            batch.push(new_payment(main, i));
            if i % 100 == 0 {
                batch.push(new_payment(other, i));
                others += 1;
            }
        }
        insert_many(db, batch).await?;
        done = end;
        if done.is_multiple_of(200_000) || done == rows {
            eprintln!(
                "  seeded {done}/{rows} rows ({:.1} s)",
                started.elapsed().as_secs_f64()
            );
        }
    }
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "  seeding: {rows} + {others} payments (each with an event) in {secs:.1} s ({:.0} payments/s)",
        (rows + others) as f64 / secs
    );
    Ok(())
}

fn page_query(account_id: &str, order: Order, after: Option<Position>) -> PageQuery {
    PageQuery {
        account_id: account_id.to_string(),
        filter: PaymentFilter::default(),
        order,
        size: PageSize::First(PAGE),
        after,
        before: None,
        columns: PaymentColumns::ALL,
        amount_range_size: None,
    }
}

async fn explain(db: &Db, query: &PageQuery) -> Result<String, BoxError> {
    let sql = page_sql(db.backend(), query);
    let explain = match db.backend() {
        Backend::Sqlite => format!("EXPLAIN QUERY PLAN {sql}"),
        Backend::Postgres => format!("EXPLAIN {sql}"),
    };
    let rows = db.query_text(&explain).await?;
    Ok(rows
        .iter()
        .map(|cols| format!("    {}", cols.last().cloned().unwrap_or_default()))
        .collect::<Vec<_>>()
        .join("\n"))
}

async fn measure(
    db: &Db,
    database: &'static str,
    account_id: &str,
    rows: u64,
    repeats: usize,
    keyset_rounds: usize,
) -> Result<(Vec<Row>, Vec<Control>), BoxError> {
    let orders = [
        Order {
            field: SortField::CreatedAt,
            direction: Direction::Desc,
        },
        Order {
            field: SortField::Amount,
            direction: Direction::Asc,
        },
    ];
    let mut out = Vec::new();
    let mut controls = Vec::new();
    for order in orders {
        let depths: Vec<u64> = DEPTHS.into_iter().filter(|&d| d < rows).collect();
        let deepest = depths.iter().copied().max().unwrap_or(0);
        let mut queries = Vec::new();
        for &depth in &depths {
            // The cursor of the row just before `depth`, as a client would hold it.
            let after = if depth == 0 {
                None
            } else {
                Some(cursor_at(db, account_id, order, depth - 1).await?)
            };
            let query = page_query(account_id, order, after);

            // Correctness: the keyset page and the OFFSET page hold the same rows, in order.
            let page = fetch(db, &query).await?;
            let offset_rows = offset_page_for_benchmark(db, account_id, order, depth, PAGE).await?;
            let keyset_ids: Vec<&str> = page.rows.iter().map(|r| r.id.as_str()).collect();
            let offset_ids: Vec<&str> = offset_rows.iter().map(|r| r.id.as_str()).collect();
            assert_eq!(
                keyset_ids,
                offset_ids,
                "{database} {} depth {depth}: keyset and OFFSET pages differ",
                order_name(order)
            );
            assert_eq!(keyset_ids.len() as u64, PAGE.min(rows - depth));
            assert_eq!(exists_behind(db, &query).await?, depth > 0);
            if depth == deepest {
                eprintln!(
                    "  plan of the deepest keyset page ({}, depth {depth}):\n{}",
                    order_name(order),
                    explain(db, &query).await?
                );
            }
            queries.push(query);
        }
        // Control: a cursor page at depth 1, to tell the cost of having a cursor from the
        // cost of depth. Timed in the same rounds as the others, last in the list.
        let has_control = rows > 1;
        if has_control {
            let query = page_query(
                account_id,
                order,
                Some(cursor_at(db, account_id, order, 0).await?),
            );
            let page = fetch(db, &query).await?;
            let offset_rows = offset_page_for_benchmark(db, account_id, order, 1, PAGE).await?;
            assert!(
                page.rows
                    .iter()
                    .map(|r| &r.id)
                    .eq(offset_rows.iter().map(|r| &r.id))
            );
            queries.push(query);
        }

        let mut keyset = time_keyset_rounds(db, &queries, keyset_rounds, false).await?;
        let mut with_probe = time_keyset_rounds(db, &queries, keyset_rounds, true).await?;
        let mut first_keyset = None;
        let mut first_offset = None;
        for (i, &depth) in depths.iter().enumerate() {
            // OFFSET: one untimed warm-up, then `repeats` timed runs.
            offset_page_for_benchmark(db, account_id, order, depth, PAGE).await?;
            let mut offset = Vec::with_capacity(repeats);
            for _ in 0..repeats {
                let started = Instant::now();
                let rows = offset_page_for_benchmark(db, account_id, order, depth, PAGE).await?;
                offset.push(started.elapsed());
                std::hint::black_box(rows);
            }

            let (keyset_median, keyset_p95) = summarize(&mut keyset[i]);
            let (with_probe_median, _) = summarize(&mut with_probe[i]);
            let (offset_median, _) = summarize(&mut offset);
            let base_keyset = *first_keyset.get_or_insert(keyset_median);
            let base_offset = *first_offset.get_or_insert(offset_median);
            let row = Row {
                database,
                order: order_name(order),
                depth,
                keyset_median,
                keyset_p95,
                keyset_ratio: keyset_median / base_keyset,
                offset_median,
                offset_ratio: offset_median / base_offset,
                with_probe_median,
            };
            eprintln!("  {}", table_line(&row));
            out.push(row);
        }
        if has_control {
            let (keyset_median, keyset_p95) = summarize(&mut keyset[depths.len()]);
            let control = Control {
                database,
                order: order_name(order),
                keyset_median,
                keyset_p95,
                keyset_ratio: keyset_median / first_keyset.unwrap_or(keyset_median),
            };
            eprintln!("  {}", control_line(&control));
            controls.push(control);
        }
    }
    Ok((out, controls))
}

fn control_header() -> String {
    "| database | order | depth | keyset median ms | keyset p95 ms | keyset ratio vs first page |\n\
     |---|---|---:|---:|---:|---:|"
        .to_string()
}

fn control_line(control: &Control) -> String {
    format!(
        "| {} | {} | 1 | {:.3} | {:.3} | {:.2}x |",
        control.database,
        control.order,
        control.keyset_median,
        control.keyset_p95,
        control.keyset_ratio
    )
}

fn table_header() -> String {
    "| database | order | depth | keyset median ms | keyset p95 ms | keyset ratio vs first page | offset median ms | offset ratio | keyset + hasPreviousPage probe median ms |\n\
     |---|---|---:|---:|---:|---:|---:|---:|---:|"
        .to_string()
}

fn table_line(row: &Row) -> String {
    format!(
        "| {} | {} | {} | {:.3} | {:.3} | {:.2}x | {:.3} | {:.2}x | {:.3} |",
        row.database,
        row.order,
        row.depth,
        row.keyset_median,
        row.keyset_p95,
        row.keyset_ratio,
        row.offset_median,
        row.offset_ratio,
        row.with_probe_median
    )
}

async fn run(
    db: &Db,
    database: &'static str,
    settings: &Settings,
) -> Result<(Vec<Row>, Vec<Control>), BoxError> {
    let main = accounts::create(db, "bench-pages").await?.account;
    let other = accounts::create(db, "bench-pages-other").await?.account;
    seed(db, &main.id, &other.id, settings.rows).await?;
    let started = Instant::now();
    match db.backend() {
        Backend::Sqlite => db.execute_unprepared("ANALYZE").await?,
        Backend::Postgres => {
            db.execute_unprepared("ANALYZE accounts, payments, payment_events")
                .await?
        }
    }
    eprintln!("  ANALYZE: {:.1} s", started.elapsed().as_secs_f64());
    measure(
        db,
        database,
        &main.id,
        settings.rows,
        settings.repeats,
        settings.keyset_rounds,
    )
    .await
}

async fn bench_sqlite(settings: &Settings) -> Result<(Vec<Row>, Vec<Control>), BoxError> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("bench-pages.db");
    let config = DbConfig {
        url: format!("sqlite://{}?mode=rwc", path.display()),
        schema: None,
        max_connections: 4,
        busy_timeout: Duration::from_secs(30),
        acquire_timeout: Duration::from_secs(30),
    };
    eprintln!("sqlite: {}", path.display());
    Db::migrate(&config).await?;
    let db = Db::connect(&config).await?;
    let result = run(&db, "SQLite", settings).await;
    db.close().await?;
    result
}

async fn bench_postgres(settings: &Settings) -> Result<(Vec<Row>, Vec<Control>), BoxError> {
    let schema = format!("bench_pages_{:016x}", rand::random::<u64>());
    let config = DbConfig {
        url: settings.postgres_url.clone(),
        schema: Some(schema.clone()),
        max_connections: 4,
        busy_timeout: Duration::from_secs(30),
        acquire_timeout: Duration::from_secs(30),
    };
    eprintln!("postgres: schema {schema}");
    Db::migrate(&config).await?;
    let db = Db::connect(&config).await?;
    let result = run(&db, "PostgreSQL", settings).await;
    let dropped = db
        .execute_unprepared(&format!("DROP SCHEMA \"{schema}\" CASCADE"))
        .await;
    db.close().await?;
    let measured = result?;
    dropped?;
    Ok(measured)
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let settings = Settings::from_env()?;
    eprintln!(
        "pagination benchmark: {} rows, databases {:?}, {} keyset rounds, {} OFFSET repeats, \
         page size {PAGE}",
        settings.rows, settings.databases, settings.keyset_rounds, settings.repeats
    );
    let mut rows = Vec::new();
    let mut controls = Vec::new();
    for database in &settings.databases {
        let result = match database.as_str() {
            "sqlite" => bench_sqlite(&settings).await?,
            "postgres" | "postgresql" => bench_postgres(&settings).await?,
            other => return Err(format!("unknown database {other:?} in BENCH_DATABASES").into()),
        };
        rows.extend(result.0);
        controls.extend(result.1);
    }
    println!();
    println!(
        "Rows: {} (+{} in a second account); page size {PAGE}; {} timed runs of each keyset \
         page (interleaved rounds), {} of each OFFSET page",
        settings.rows,
        settings.rows.div_ceil(100),
        settings.keyset_rounds,
        settings.repeats
    );
    println!();
    println!("{}", table_header());
    for row in &rows {
        println!("{}", table_line(row));
    }
    println!();
    println!(
        "Control (not part of the table above): the keyset page after the first row, which has a \
         cursor but no depth"
    );
    println!();
    println!("{}", control_header());
    for control in &controls {
        println!("{}", control_line(control));
    }
    Ok(())
}
