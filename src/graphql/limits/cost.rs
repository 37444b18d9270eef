//! A request's cost, calculated before anything runs from its document and variables, as the
//! contract defines it: scalar and enum fields 0; an object field (or a list of objects) 1
//! plus its selection; a connection 2 + its page size x one node counted as an object;
//! `nodes(ids)` its number of ids x one node; a mutation field 10 plus its selection.
//!
//! The operation is first turned into a [`Plan`], with fragments expanded (their size is
//! already bounded, see `shape`; the planning is in `cost/planner.rs`). The plan gives the
//! requested cost, and, walked over the response's data, the actual cost: what the rows
//! really returned amount to.

mod planner;

use std::collections::HashMap;

use async_graphql::parser::types::{
    BaseType, ExecutableDocument, OperationDefinition, TypeKind, TypeSystemDefinition,
};
use async_graphql::{Name, Value, Variables};

/// What `totalCount` adds to its connection while it counts rows: as much as a full page.
pub const TOTAL_COUNT_COST: u64 = 100;
/// What `totalCount` of payments adds when it is read from the status counts (no filter, or a
/// status filter only): a few rows, like one object.
pub const COUNTED_TOTAL_COST: u64 = 1;
const MUTATION_FIELD_COST: u64 = 10;
const CONNECTION_COST: u64 = 2;
/// `nodes(ids)` takes at most this many ids; more are refused by the field itself.
const MAX_NODES: u64 = 100;

/// The schema's object types and the named type of each of their fields.
#[derive(Debug, Default)]
pub struct TypeTable {
    fields: HashMap<String, HashMap<String, String>>,
}

impl TypeTable {
    /// Reads the composite types out of the schema's SDL.
    pub fn from_sdl(sdl: &str) -> Self {
        let mut fields = HashMap::new();
        let Ok(document) = async_graphql::parser::parse_schema(sdl) else {
            return Self::default();
        };
        for definition in document.definitions {
            let TypeSystemDefinition::Type(ty) = definition else {
                continue;
            };
            let defs = match ty.node.kind {
                TypeKind::Object(object) => object.fields,
                TypeKind::Interface(interface) => interface.fields,
                TypeKind::Union(_) => Vec::new(),
                _ => continue,
            };
            let by_name = defs
                .into_iter()
                .map(|f| {
                    let mut ty = &f.node.ty.node;
                    while let BaseType::List(inner) = &ty.base {
                        ty = inner;
                    }
                    let named = match &ty.base {
                        BaseType::Named(name) => name.to_string(),
                        BaseType::List(_) => String::new(),
                    };
                    (f.node.name.node.to_string(), named)
                })
                .collect();
            fields.insert(ty.node.name.node.to_string(), by_name);
        }
        Self { fields }
    }

    /// Whether the object type `parent` has the field `field`.
    pub fn has_field(&self, parent: &str, field: &str) -> bool {
        self.fields
            .get(parent)
            .is_some_and(|f| f.contains_key(field))
    }

    /// The fields of the object type `parent`, in no particular order.
    pub fn fields_of(&self, parent: &str) -> impl Iterator<Item = &str> {
        self.fields
            .get(parent)
            .into_iter()
            .flat_map(|fields| fields.keys().map(String::as_str))
    }

    fn is_composite(&self, ty: &str) -> bool {
        self.fields.contains_key(ty)
    }

    fn field_type(&self, parent: &str, field: &str) -> Option<&str> {
        self.fields.get(parent)?.get(field).map(String::as_str)
    }
}

/// How one selected field counts.
#[derive(Debug, PartialEq)]
enum Kind {
    /// Scalars, enums, `pageInfo` and `cursor`: nothing.
    Free,
    /// An object, or a list of objects counted like one.
    Object(Vec<Planned>),
    Mutation(Vec<Planned>),
    Connection {
        page: u64,
        parts: Vec<Planned>,
    },
    /// `totalCount` of a connection, at what it costs: [`TOTAL_COUNT_COST`] when it counts
    /// rows, [`COUNTED_TOTAL_COST`] when the status counts answer it.
    TotalCount(u64),
    /// `edges` or `nodes` of a connection: each row is paid for by the connection.
    Rows(Vec<Planned>),
    /// `node` of an edge.
    EdgeNode(Vec<Planned>),
    Nodes {
        count: u64,
        children: Vec<Planned>,
    },
}

#[derive(Debug, PartialEq)]
struct Planned {
    /// The field's key in the response: its alias, or its name.
    key: Name,
    kind: Kind,
}

/// An operation, ready to be costed.
#[derive(Debug)]
pub struct Plan {
    fields: Vec<Planned>,
}

impl Plan {
    pub fn new<'a>(
        table: &'a TypeTable,
        doc: &'a ExecutableDocument,
        operation: &'a OperationDefinition,
        variables: &'a Variables,
    ) -> Self {
        Self::with_read(table, doc, operation, variables).0
    }

    /// [`Plan::new`], and the names of the variables the plan read (whose values it depends
    /// on: no other variable changes it).
    pub fn with_read<'a>(
        table: &'a TypeTable,
        doc: &'a ExecutableDocument,
        operation: &'a OperationDefinition,
        variables: &'a Variables,
    ) -> (Self, Vec<Name>) {
        let (fields, read) = planner::plan(table, doc, operation, variables);
        (Plan { fields }, read)
    }

    /// A plan of nothing.
    #[cfg(test)]
    pub fn empty() -> Self {
        Plan { fields: Vec::new() }
    }

    /// How many fields the plan holds, at every depth.
    pub fn fields(&self) -> usize {
        count(&self.fields)
    }

    /// The cost before anything runs.
    pub fn requested(&self) -> u64 {
        sum(&self.fields, requested)
    }

    /// The cost of what `data` holds. Once the operation has executed, a mutation field
    /// costs its 10 even when it failed and left no data.
    pub fn actual(&self, data: &Value, executed: bool) -> u64 {
        match data {
            Value::Object(_) => sum_actual(&self.fields, data),
            _ if executed => sum_actual(&self.fields, &Value::Object(Default::default())),
            _ => 0,
        }
    }
}

fn count(fields: &[Planned]) -> usize {
    fields
        .iter()
        .map(|field| {
            1 + match &field.kind {
                Kind::Free | Kind::TotalCount(_) => 0,
                Kind::Object(children)
                | Kind::Mutation(children)
                | Kind::Rows(children)
                | Kind::EdgeNode(children)
                | Kind::Connection {
                    parts: children, ..
                }
                | Kind::Nodes { children, .. } => count(children),
            }
        })
        .sum()
}

fn sum(fields: &[Planned], each: fn(&Planned) -> u64) -> u64 {
    fields
        .iter()
        .fold(0u64, |total, f| total.saturating_add(each(f)))
}

fn requested(field: &Planned) -> u64 {
    match &field.kind {
        Kind::Free => 0,
        Kind::Object(children) => 1u64.saturating_add(sum(children, requested)),
        Kind::Mutation(children) => MUTATION_FIELD_COST.saturating_add(sum(children, requested)),
        Kind::Rows(children) | Kind::EdgeNode(children) => sum(children, requested),
        Kind::Connection { page, parts } => {
            let (rows, counts): (Vec<&Planned>, Vec<&Planned>) =
                parts.iter().partition(|p| matches!(p.kind, Kind::Rows(_)));
            let node = rows
                .iter()
                .fold(1u64, |t, p| t.saturating_add(requested(p)));
            CONNECTION_COST
                .saturating_add(page.saturating_mul(node))
                .saturating_add(
                    counts
                        .iter()
                        .fold(0u64, |t, p| t.saturating_add(requested(p))),
                )
        }
        Kind::TotalCount(cost) => *cost,
        Kind::Nodes { count, children } => {
            count.saturating_mul(1u64.saturating_add(sum(children, requested)))
        }
    }
}

/// The actual cost of `fields` read from `data`, the object that holds their values.
fn sum_actual(fields: &[Planned], data: &Value) -> u64 {
    let Value::Object(object) = data else {
        return 0;
    };
    fields.iter().fold(0u64, |total, field| {
        let value = object.get(&field.key).unwrap_or(&Value::Null);
        total.saturating_add(actual(field, value))
    })
}

fn actual(field: &Planned, value: &Value) -> u64 {
    if matches!(value, Value::Null) {
        return match field.kind {
            Kind::Mutation(_) => MUTATION_FIELD_COST,
            _ => 0,
        };
    }
    match (&field.kind, value) {
        (Kind::Free, _) => 0,
        (Kind::TotalCount(cost), _) => *cost,
        (Kind::Object(children), Value::List(items)) => 1u64.saturating_add(
            items
                .iter()
                .map(|item| sum_actual(children, item))
                .max()
                .unwrap_or(0),
        ),
        (Kind::Object(children), _) => 1u64.saturating_add(sum_actual(children, value)),
        (Kind::Mutation(children), _) => {
            MUTATION_FIELD_COST.saturating_add(sum_actual(children, value))
        }
        // Rows whose fields cost nothing, whatever they hold (scalars, and edges' nodes of
        // scalars), cost nothing: a page's 50 rows are not walked to add up zeros.
        (Kind::Rows(children), Value::List(_)) if costs_nothing(children) => 0,
        (Kind::Rows(children), Value::List(items)) => items
            .iter()
            .fold(0u64, |t, item| t.saturating_add(sum_actual(children, item))),
        (Kind::EdgeNode(children), _) => sum_actual(children, value),
        (Kind::Connection { parts, .. }, Value::Object(object)) => {
            let rows = parts
                .iter()
                .filter(|p| matches!(p.kind, Kind::Rows(_)))
                .filter_map(|p| match object.get(&p.key) {
                    Some(Value::List(items)) => Some(items.len() as u64),
                    _ => None,
                })
                .max()
                .unwrap_or(0);
            CONNECTION_COST
                .saturating_add(rows)
                .saturating_add(sum_actual(parts, value))
        }
        (Kind::Nodes { children, .. }, Value::List(items)) => items
            .iter()
            .filter(|item| !matches!(item, Value::Null))
            .fold(0u64, |t, item| {
                t.saturating_add(1u64.saturating_add(sum_actual(children, item)))
            }),
        _ => 0,
    }
}

/// Whether `fields` cost nothing whatever values they hold: scalars, and edges' nodes that
/// select only scalars.
fn costs_nothing(fields: &[Planned]) -> bool {
    fields.iter().all(|field| match &field.kind {
        Kind::Free => true,
        Kind::EdgeNode(children) => costs_nothing(children),
        _ => false,
    })
}

#[cfg(test)]
mod tests;
