//! Which operation of a parsed document a request runs, decided in one place: the query
//! limits, the scopes of client tokens, the refusal of mutations over `GET`, the metrics'
//! label and the choice of task for a request over HTTP all read the same [`Operation`].
//!
//! The rule is async-graphql's own, so that what the policy checks is what then executes:
//! the operation `operationName` names, or without a name the document's only operation.

use async_graphql::Name;
use async_graphql::parser::types::{
    DocumentOperations, ExecutableDocument, OperationDefinition, OperationType, Selection,
    SelectionSet,
};

/// Fragment spreads and inline fragments followed when looking for the first root field:
/// enough for any document a client writes, and no loop on a fragment cycle (which only
/// validation refuses, after the label is taken).
const MAX_FRAGMENT_HOPS: usize = 8;

/// The operation a request runs.
#[derive(Clone, Copy, Debug)]
pub struct Operation<'d> {
    pub document: &'d ExecutableDocument,
    pub definition: &'d OperationDefinition,
    pub ty: OperationType,
    pub selection_set: &'d SelectionSet,
    /// The first field it selects at the root, through fragments; `None` when it cannot be
    /// reached within 8 fragment hops or names an undefined fragment.
    pub first_field: Option<&'d Name>,
}

/// Why a document has no operation to run for a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoOperation {
    /// Several operations, and no `operationName` to say which.
    NameRequired,
    /// `operationName` names no operation of the document.
    UnknownName(String),
    /// The document holds no operation at all (the parser refuses such text; a document
    /// built otherwise may still be empty).
    Missing,
}

/// The operation of `document` that a request with `operation_name` runs.
pub fn find<'d>(
    document: &'d ExecutableDocument,
    operation_name: Option<&str>,
) -> Result<Operation<'d>, NoOperation> {
    let definition = match (&document.operations, operation_name) {
        (DocumentOperations::Single(operation), None) => operation,
        (DocumentOperations::Single(_), Some(name)) => {
            return Err(NoOperation::UnknownName(name.to_string()));
        }
        (DocumentOperations::Multiple(operations), Some(name)) => operations
            .get(name)
            .ok_or_else(|| NoOperation::UnknownName(name.to_string()))?,
        (DocumentOperations::Multiple(operations), None) => {
            let mut all = operations.values();
            match (all.next(), all.next()) {
                (Some(only), None) => only,
                (Some(_), Some(_)) => return Err(NoOperation::NameRequired),
                (None, _) => return Err(NoOperation::Missing),
            }
        }
    };
    let definition = &definition.node;
    let selection_set = &definition.selection_set.node;
    Ok(Operation {
        document,
        definition,
        ty: definition.ty,
        selection_set,
        first_field: first_field(document, selection_set, 0),
    })
}

impl<'d> Operation<'d> {
    /// The schema's root type the operation's fields belong to.
    pub fn root_type(&self) -> &'static str {
        root_type(self.ty)
    }

    /// Calls `visit` with every root field name, through fragment spreads and inline
    /// fragments; each named fragment once, so that a cycle (refused by validation, later)
    /// cannot loop here, and undefined fragments are skipped (refused likewise).
    pub fn root_fields(&self, mut visit: impl FnMut(&'d str)) {
        let mut seen = Vec::new();
        walk(self.document, self.selection_set, &mut seen, &mut visit);
    }
}

/// The name of a root type, as the schema spells it.
pub fn root_type(ty: OperationType) -> &'static str {
    match ty {
        OperationType::Query => "Query",
        OperationType::Mutation => "Mutation",
        OperationType::Subscription => "Subscription",
    }
}

/// The name the schema's registry gives the root type of `ty`, if the schema has one.
pub fn registered_root(
    registry: &async_graphql::registry::Registry,
    ty: OperationType,
) -> Option<&str> {
    match ty {
        OperationType::Query => Some(registry.query_type.as_str()),
        OperationType::Mutation => registry.mutation_type.as_deref(),
        OperationType::Subscription => registry.subscription_type.as_deref(),
    }
}

fn first_field<'d>(
    document: &'d ExecutableDocument,
    set: &'d SelectionSet,
    hops: usize,
) -> Option<&'d Name> {
    if hops > MAX_FRAGMENT_HOPS {
        return None;
    }
    match &set.items.first()?.node {
        Selection::Field(field) => Some(&field.node.name.node),
        Selection::FragmentSpread(spread) => {
            let fragment = document.fragments.get(&spread.node.fragment_name.node)?;
            first_field(document, &fragment.node.selection_set.node, hops + 1)
        }
        Selection::InlineFragment(inline) => {
            first_field(document, &inline.node.selection_set.node, hops + 1)
        }
    }
}

fn walk<'d>(
    document: &'d ExecutableDocument,
    set: &'d SelectionSet,
    seen: &mut Vec<&'d str>,
    visit: &mut impl FnMut(&'d str),
) {
    for selection in &set.items {
        match &selection.node {
            Selection::Field(field) => visit(field.node.name.node.as_str()),
            Selection::InlineFragment(inline) => {
                walk(document, &inline.node.selection_set.node, seen, visit)
            }
            Selection::FragmentSpread(spread) => {
                let name = spread.node.fragment_name.node.as_str();
                if seen.contains(&name) {
                    continue;
                }
                seen.push(name);
                if let Some(fragment) = document.fragments.get(&spread.node.fragment_name.node) {
                    walk(document, &fragment.node.selection_set.node, seen, visit);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::parser::parse_query;

    fn found(
        text: &str,
        name: Option<&str>,
    ) -> Result<(OperationType, Option<String>), NoOperation> {
        let document = parse_query(text).expect("parses");
        find(&document, name).map(|op| (op.ty, op.first_field.map(|f| f.to_string())))
    }

    fn root_fields(text: &str) -> Vec<String> {
        let document = parse_query(text).expect("parses");
        let mut fields = Vec::new();
        find(&document, None)
            .expect("an operation")
            .root_fields(|field| fields.push(field.to_string()));
        fields
    }

    #[test]
    fn the_only_operation_runs_without_a_name() {
        assert_eq!(
            found("{ viewer { id } }", None),
            Ok((OperationType::Query, Some("viewer".into())))
        );
        assert_eq!(
            found("mutation Pay { createPayment { x } }", None),
            Ok((OperationType::Mutation, Some("createPayment".into())))
        );
        assert_eq!(
            found("subscription { paymentUpdated { id } }", None),
            Ok((OperationType::Subscription, Some("paymentUpdated".into())))
        );
    }

    #[test]
    fn a_name_picks_one_of_several_and_must_be_there() {
        let two = "query A { viewer { id } } mutation B { cancelPayment { x } }";
        assert_eq!(
            found(two, Some("B")),
            Ok((OperationType::Mutation, Some("cancelPayment".into())))
        );
        assert_eq!(found(two, None), Err(NoOperation::NameRequired));
        assert_eq!(
            found(two, Some("C")),
            Err(NoOperation::UnknownName("C".into()))
        );
        // An anonymous operation has no name to be asked for by.
        assert_eq!(
            found("{ viewer { id } }", Some("Named")),
            Err(NoOperation::UnknownName("Named".into()))
        );
    }

    #[test]
    fn the_word_mutation_elsewhere_does_not_make_a_mutation() {
        let text =
            "query mutation { payments(filter: {description: \"mutation\"}) { totalCount } }";
        assert_eq!(
            found(text, None),
            Ok((OperationType::Query, Some("payments".into())))
        );
    }

    #[test]
    fn the_first_field_is_found_through_fragments_within_a_bound() {
        let spread = "{ ...F } fragment F on Query { ... on Query { payment(id: \"x\") { id } } }";
        assert_eq!(found(spread, None).map(|f| f.1), Ok(Some("payment".into())));
        let cycle = "{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }";
        assert_eq!(found(cycle, None).map(|f| f.1), Ok(None));
        let undefined = "{ ...Nope viewer { id } }";
        assert_eq!(found(undefined, None).map(|f| f.1), Ok(None));
        assert_eq!(
            found("{ __typename viewer { id } }", None).map(|f| f.1),
            Ok(Some("__typename".into()))
        );
    }

    #[test]
    fn every_root_field_is_visited_once_per_fragment() {
        assert_eq!(
            root_fields(
                "{ viewer { id } ...A } fragment A on Query { ... on Query { payments { totalCount } } ...B ...A } \
                 fragment B on Query { ...A __schema { queryType { name } } }"
            ),
            ["viewer", "payments", "__schema"]
        );
    }

    #[test]
    fn an_empty_document_has_no_operation() {
        let empty = ExecutableDocument {
            operations: DocumentOperations::Multiple(Default::default()),
            fragments: Default::default(),
        };
        assert_eq!(find(&empty, None).err(), Some(NoOperation::Missing));
    }
}
