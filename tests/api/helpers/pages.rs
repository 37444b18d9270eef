//! Relay pages of payments: the page query, what a listing must return computed apart from
//! the server, and a walk through a whole listing that checks every page.

use graphpay::domain::status::PaymentStatus;
use graphpay::domain::time::Timestamp;
use graphpay::persistence::payments::NewPayment;
use serde_json::{Value, json};

use super::TestApp;

pub const PAGE: &str = "query Page($first: Int, $after: String, $last: Int, $before: String, $filter: PaymentFilter, $orderBy: PaymentOrder) {
  payments(first: $first, after: $after, last: $last, before: $before, filter: $filter, orderBy: $orderBy) {
    edges { cursor node { id } }
    nodes { id }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}";

/// A stored payment as the tests see it.
#[derive(Clone, Debug)]
pub struct Row {
    pub id: String,
    pub amount: i64,
    pub currency: String,
    pub status: PaymentStatus,
    pub created_at: i64,
    pub reference: Option<String>,
}

/// What a listing's filter and order mean, computed independently of the server.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    pub statuses: Vec<PaymentStatus>,
    pub currency: Option<String>,
    pub created_after: Option<i64>,
    pub created_before: Option<i64>,
    pub amount_min: Option<i64>,
    pub amount_max: Option<i64>,
    pub reference: Option<String>,
    pub by_amount: bool,
    pub ascending: bool,
}

impl Listing {
    /// The `filter` and `orderBy` variables of `PAGE`.
    pub fn variables(&self) -> (Value, Value) {
        let mut filter = serde_json::Map::new();
        if !self.statuses.is_empty() {
            filter.insert(
                "status".into(),
                json!(self.statuses.iter().map(|s| s.as_str()).collect::<Vec<_>>()),
            );
        }
        if let Some(c) = &self.currency {
            filter.insert("currency".into(), json!(c));
        }
        if let Some(t) = self.created_after {
            filter.insert(
                "createdAfter".into(),
                json!(Timestamp::from_micros(t).to_rfc3339()),
            );
        }
        if let Some(t) = self.created_before {
            filter.insert(
                "createdBefore".into(),
                json!(Timestamp::from_micros(t).to_rfc3339()),
            );
        }
        if let Some(a) = self.amount_min {
            filter.insert("amountMin".into(), json!(a));
        }
        if let Some(a) = self.amount_max {
            filter.insert("amountMax".into(), json!(a));
        }
        if let Some(r) = &self.reference {
            filter.insert("reference".into(), json!(r));
        }
        let order = json!({
            "field": if self.by_amount { "AMOUNT" } else { "CREATED_AT" },
            "direction": if self.ascending { "ASC" } else { "DESC" },
        });
        (Value::Object(filter), order)
    }

    /// The ids the listing must return, in order.
    pub fn expected(&self, rows: &[Row]) -> Vec<String> {
        let mut kept: Vec<&Row> = rows
            .iter()
            .filter(|r| self.statuses.is_empty() || self.statuses.contains(&r.status))
            .filter(|r| self.currency.as_ref().is_none_or(|c| &r.currency == c))
            .filter(|r| self.created_after.is_none_or(|t| r.created_at >= t))
            .filter(|r| self.created_before.is_none_or(|t| r.created_at < t))
            .filter(|r| self.amount_min.is_none_or(|a| r.amount >= a))
            .filter(|r| self.amount_max.is_none_or(|a| r.amount <= a))
            .filter(|r| self.reference.is_none() || r.reference == self.reference)
            .collect();
        kept.sort_by(|a, b| {
            let key = |r: &Row| {
                if self.by_amount {
                    r.amount
                } else {
                    r.created_at
                }
            };
            (key(a), &a.id).cmp(&(key(b), &b.id))
        });
        if !self.ascending {
            kept.reverse();
        }
        kept.into_iter().map(|r| r.id.clone()).collect()
    }
}

/// Fetches one page; panics on errors.
pub async fn page(
    app: &TestApp,
    key: &str,
    listing: &Listing,
    size: (Option<i64>, Option<i64>),
    cursors: (Option<&str>, Option<&str>),
) -> (Vec<String>, Value) {
    let (filter, order) = listing.variables();
    let vars = json!({
        "first": size.0, "last": size.1, "after": cursors.0, "before": cursors.1,
        "filter": filter, "orderBy": order,
    });
    let data = app.query(key, PAGE, vars).await;
    let conn = &data["payments"];
    let ids: Vec<String> = conn["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["node"]["id"].as_str().unwrap().to_string())
        .collect();
    let nodes: Vec<String> = conn["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, nodes, "edges and nodes agree");
    let info = conn["pageInfo"].clone();
    let edges = conn["edges"].as_array().unwrap();
    assert_eq!(
        info["startCursor"],
        edges
            .first()
            .map(|e| e["cursor"].clone())
            .unwrap_or(Value::Null)
    );
    assert_eq!(
        info["endCursor"],
        edges
            .last()
            .map(|e| e["cursor"].clone())
            .unwrap_or(Value::Null)
    );
    (ids, info)
}

/// Walks forward then backward through the whole listing, checking every page's pageInfo.
pub async fn walk_both_ways(app: &TestApp, key: &str, listing: &Listing, rows: &[Row], size: i64) {
    let expected = listing.expected(rows);
    let n = usize::try_from(size).unwrap();

    let mut seen = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let (ids, info) = page(
            app,
            key,
            listing,
            (Some(size), None),
            (after.as_deref(), None),
        )
        .await;
        let start = seen.len();
        assert_eq!(
            ids,
            expected[start..(start + n).min(expected.len())],
            "forward page at {start} of {listing:?}"
        );
        seen.extend(ids);
        assert_eq!(
            info["hasNextPage"],
            seen.len() < expected.len(),
            "hasNextPage at {start}"
        );
        assert_eq!(
            info["hasPreviousPage"],
            start > 0,
            "hasPreviousPage at {start}"
        );
        if info["hasNextPage"] != true {
            break;
        }
        after = info["endCursor"].as_str().map(str::to_string);
    }
    assert_eq!(seen, expected);

    let mut back: Vec<String> = Vec::new();
    let mut before: Option<String> = None;
    loop {
        let (ids, info) = page(
            app,
            key,
            listing,
            (None, Some(size)),
            (None, before.as_deref()),
        )
        .await;
        let end = expected.len() - back.len();
        let start = end.saturating_sub(n);
        assert_eq!(
            ids,
            expected[start..end],
            "backward page ending at {end} of {listing:?}"
        );
        assert_eq!(
            info["hasPreviousPage"],
            start > 0,
            "hasPreviousPage ending at {end}"
        );
        assert_eq!(
            info["hasNextPage"],
            end < expected.len(),
            "hasNextPage ending at {end}"
        );
        let mut next = ids;
        next.extend(back);
        back = next;
        if info["hasPreviousPage"] != true {
            break;
        }
        before = info["startCursor"].as_str().map(str::to_string);
    }
    assert_eq!(back, expected, "forward and backward walks agree");
}

/// A payment of `amount` USD cents by `tok_visa`, in `status`, created at `created_at`, for a
/// test to store directly.
pub fn usd_payment(
    account_id: &str,
    amount: i64,
    status: PaymentStatus,
    created_at: Timestamp,
) -> NewPayment {
    NewPayment {
        account_id: account_id.to_string(),
        amount: graphpay::domain::money::MinorUnits::parse(amount).expect("an amount"),
        currency: graphpay::domain::currency::Currency::parse("USD").expect("a currency"),
        source: "tok_visa".to_string(),
        description: None,
        reference: None,
        metadata: Default::default(),
        status,
        capture_method: Default::default(),
        return_url: None,
        created_at,
    }
}

/// Stores `new` and returns the rows as a listing expects them, in insertion order.
pub async fn insert_rows(app: &TestApp, new: Vec<NewPayment>) -> Vec<Row> {
    let ids = app.insert_payments(new.clone()).await;
    ids.into_iter()
        .zip(new)
        .map(|(id, p)| Row {
            id,
            amount: p.amount.get(),
            currency: p.currency.code(),
            status: p.status,
            created_at: p.created_at.micros(),
            reference: p.reference,
        })
        .collect()
}

/// Scans of `index` that PostgreSQL has counted so far in the test's own schema.
pub async fn scans_of(db: &graphpay::persistence::Db, index: &str) -> i64 {
    let rows = db
        .query_text(&format!(
            "SELECT COALESCE(SUM(idx_scan), 0)::text FROM pg_stat_user_indexes \
             WHERE schemaname = current_schema() AND indexrelname = '{index}'"
        ))
        .await
        .unwrap();
    rows[0][0].parse().unwrap()
}

/// SQLite's plan for `query`'s page statement on `db`, its statement first.
pub async fn sqlite_plan(
    db: &graphpay::persistence::Db,
    query: &graphpay::persistence::payment_pages::PageQuery,
) -> String {
    let sql = graphpay::persistence::payment_pages::page_sql(
        graphpay::persistence::Backend::Sqlite,
        query,
    );
    explained_on_sqlite(db, &sql).await
}

/// SQLite's plan for `sql` on `db`, on one line after the statement.
pub async fn explained_on_sqlite(db: &graphpay::persistence::Db, sql: &str) -> String {
    let plan = db
        .query_text(&format!("EXPLAIN QUERY PLAN {sql}"))
        .await
        .unwrap()
        .concat()
        .join(" ");
    format!("{sql}\n{plan}")
}
