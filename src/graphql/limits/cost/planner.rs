//! An operation turned into the fields its cost is counted over: fragments expanded, each
//! field's kind read from the schema's types, page sizes and ids read from arguments and
//! variables.

use std::cell::RefCell;
use std::collections::HashMap;

use async_graphql::parser::types::{
    ExecutableDocument, Field, OperationDefinition, Selection, SelectionSet,
};
use async_graphql::{Name, Value, Variables};
use async_graphql_value::Value as ParsedValue;

use super::{COUNTED_TOTAL_COST, Kind, MAX_NODES, Planned, TOTAL_COUNT_COST, TypeTable};
use crate::domain::paging::{DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE};
use crate::graphql::operation::root_type;

/// The fields of `operation`, planned, and the names of the variables read to plan them.
pub(super) fn plan(
    table: &TypeTable,
    doc: &ExecutableDocument,
    operation: &OperationDefinition,
    variables: &Variables,
) -> (Vec<Planned>, Vec<Name>) {
    let defaults = operation
        .variable_definitions
        .iter()
        .filter_map(|d| {
            let default = d.node.default_value.as_ref()?;
            Some((d.node.name.node.as_str(), &default.node))
        })
        .collect();
    let planner = Planner {
        table,
        doc,
        variables,
        defaults,
        read: RefCell::new(Vec::new()),
    };
    let mut fields = Vec::new();
    planner.set(
        &operation.selection_set.node,
        root_type(operation.ty),
        &mut fields,
    );
    (fields, planner.read.into_inner())
}

struct Planner<'a> {
    table: &'a TypeTable,
    doc: &'a ExecutableDocument,
    variables: &'a Variables,
    /// The operation's variable defaults, for variables the request leaves out.
    defaults: HashMap<&'a str, &'a Value>,
    /// The variables read so far, each once.
    read: RefCell<Vec<Name>>,
}

impl Planner<'_> {
    fn set(&self, set: &SelectionSet, parent: &str, out: &mut Vec<Planned>) {
        for item in &set.items {
            match &item.node {
                Selection::Field(field) => {
                    let field = &field.node;
                    let name = field.name.node.as_str();
                    let key = field.response_key().node.clone();
                    let ty = self.table.field_type(parent, name);
                    let inner = &field.selection_set.node;
                    let kind = if inner.items.is_empty() {
                        if name == "totalCount" && self.is_connection(parent) {
                            Kind::TotalCount(TOTAL_COUNT_COST)
                        } else {
                            Kind::Free
                        }
                    } else {
                        let ty = ty.unwrap_or_default();
                        let mut children = Vec::new();
                        self.set(inner, ty, &mut children);
                        self.kind(parent, name, ty, field, children)
                    };
                    out.push(Planned { key, kind });
                }
                Selection::InlineFragment(inline) => {
                    let on = inline
                        .node
                        .type_condition
                        .as_ref()
                        .map_or(parent, |c| c.node.on.node.as_str());
                    self.set(&inline.node.selection_set.node, on, out);
                }
                Selection::FragmentSpread(spread) => {
                    if let Some(fragment) = self.doc.fragments.get(&spread.node.fragment_name.node)
                    {
                        let on = fragment.node.type_condition.node.on.node.as_str();
                        self.set(&fragment.node.selection_set.node, on, out);
                    }
                }
            }
        }
    }

    fn kind(
        &self,
        parent: &str,
        name: &str,
        ty: &str,
        field: &Field,
        children: Vec<Planned>,
    ) -> Kind {
        if parent == "Mutation" {
            Kind::Mutation(children)
        } else if self.is_connection(ty) {
            let first = self.int_argument(field, "first");
            let last = self.int_argument(field, "last");
            let page = match (first, last) {
                (None, None) => DEFAULT_PAGE_SIZE as u64,
                (a, b) => a.unwrap_or(0).max(b.unwrap_or(0)),
            }
            .min(MAX_PAGE_SIZE as u64);
            let counted = self.counted_total(ty, field);
            let parts = children
                .into_iter()
                .map(|part| match part.kind {
                    Kind::TotalCount(_) if counted => Planned {
                        kind: Kind::TotalCount(COUNTED_TOTAL_COST),
                        ..part
                    },
                    _ => part,
                })
                .collect();
            Kind::Connection { page, parts }
        } else if self.is_connection(parent) {
            match name {
                "edges" | "nodes" => Kind::Rows(children),
                _ => Kind::Free,
            }
        } else if parent.ends_with("Edge") && name == "node" {
            Kind::EdgeNode(children)
        } else if parent == "Query" && name == "nodes" {
            Kind::Nodes {
                count: self.list_len(field, "ids").min(MAX_NODES),
                children,
            }
        } else {
            Kind::Object(children)
        }
    }

    /// Whether the status counts answer this connection's `totalCount`: payments with no
    /// filter, or a filter of statuses only (see `persistence::payment_pages::count`). A
    /// filter whose other fields are variables is taken as counting rows.
    fn counted_total(&self, ty: &str, field: &Field) -> bool {
        if ty != "PaymentConnection" {
            return false;
        }
        match self.argument(field, "filter") {
            None
            | Some(ArgValue::Const(Value::Null))
            | Some(ArgValue::Parsed(ParsedValue::Null)) => true,
            Some(ArgValue::Const(Value::Object(fields))) => fields
                .iter()
                .all(|(name, value)| name.as_str() == "status" || *value == Value::Null),
            Some(ArgValue::Parsed(ParsedValue::Object(fields))) => {
                fields.iter().all(|(name, value)| {
                    name.as_str() == "status" || matches!(value, ParsedValue::Null)
                })
            }
            Some(_) => false,
        }
    }

    fn is_connection(&self, ty: &str) -> bool {
        ty.ends_with("Connection") && self.table.is_composite(ty)
    }

    /// An argument's value, read in place: a literal, or the variable it names (or that
    /// variable's default).
    fn argument<'v>(&'v self, field: &'v Field, name: &str) -> Option<ArgValue<'v>> {
        match &field.get_argument(name)?.node {
            ParsedValue::Variable(var) => {
                let mut read = self.read.borrow_mut();
                if !read.contains(var) {
                    read.push(var.clone());
                }
                self.variables
                    .get(var)
                    .or_else(|| self.defaults.get(var.as_str()).copied())
                    .map(ArgValue::Const)
            }
            value => Some(ArgValue::Parsed(value)),
        }
    }

    /// A page-size argument as the connection will take it; out-of-range values are clamped
    /// here and refused by the field itself.
    fn int_argument(&self, field: &Field, name: &str) -> Option<u64> {
        let n = match self.argument(field, name)? {
            ArgValue::Const(Value::Number(n)) => n.as_i64(),
            ArgValue::Parsed(ParsedValue::Number(n)) => n.as_i64(),
            _ => None,
        }?;
        Some(n.max(0) as u64)
    }

    /// How many items a list argument holds; a single value counts as a list of one, as
    /// GraphQL's input coercion makes it.
    fn list_len(&self, field: &Field, name: &str) -> u64 {
        match self.argument(field, name) {
            Some(ArgValue::Const(Value::List(items))) => items.len() as u64,
            Some(ArgValue::Parsed(ParsedValue::List(items))) => items.len() as u64,
            Some(ArgValue::Const(Value::Null) | ArgValue::Parsed(ParsedValue::Null)) | None => 0,
            Some(_) => 1,
        }
    }
}

/// An argument's value where it stands in the request.
enum ArgValue<'v> {
    Const(&'v Value),
    Parsed(&'v ParsedValue),
}
