//! What the readers of a page plan from a field's selection (which fields its rows answer and
//! how they are written, which columns the statement reads, whether `totalCount` is asked),
//! kept with the parsed document ([`super::prevalidated::Parsed`]) so that a document run
//! again is not planned again.
//!
//! Such a plan is a function of the field's place in the document (its selection set and the
//! fragments that set spreads), the schema's types (every schema here is built from the same
//! ones), and the request's values of the variables that
//! `@skip` and `@include` read anywhere in the document: the library removes the selections
//! they skip before execution, and nothing else of the request reaches the selection. So a
//! plan is kept under the field's position (one field of one document), the reader that made
//! it, and those values as the request gave them. A document keeps at most [`MAX_KEPT`]
//! plans, holding in all at most twice as many fields as the document itself selects (and at
//! most [`MAX_WEIGHT`]): a planned field takes about half the memory of a field of the parsed
//! document, so a document's plans take at most about what its own fields do, which the cache
//! of parsed documents accounts for in weighing it by its text. Plans are kept only for values that are flags (a client may
//! send anything in a variable the document does not declare a flag, and that is not kept).
//! Past that, plans are made per request, as they always were.

use std::any::{Any, TypeId};
use std::sync::{Arc, OnceLock, RwLock};

use async_graphql::parser::types::{DocumentOperations, ExecutableDocument, SelectionSet};
use async_graphql::{ContextBase, Name, Pos, Value, Variables};

/// Most plans one document keeps.
const MAX_KEPT: usize = 32;
/// Most fields the plans of one document hold in all (see [`Kept::get_or_make`]'s `weight`),
/// however large the document.
const MAX_WEIGHT: usize = 1_024;

/// The plans made from one document's fields.
#[derive(Default)]
pub struct Kept {
    /// What the plans depend on and may hold, found when first needed.
    document: OnceLock<Read>,
    plans: RwLock<Plans>,
}

/// What a document's plans depend on, and the room they have.
struct Read {
    /// The variables `@skip` and `@include` read in the document.
    conditions: Vec<Name>,
    /// The fields its plans may hold in all.
    room: usize,
}

#[derive(Default)]
struct Plans {
    entries: Vec<Entry>,
    /// The fields they hold.
    weight: usize,
}

struct Entry {
    at: Pos,
    reader: TypeId,
    /// The values of [`Read::conditions`] the plan was made for (`None`: not given).
    conditions: Vec<Option<Value>>,
    plan: Arc<dyn Any + Send + Sync>,
}

impl Kept {
    /// The plan `reader` makes from the field at `at` of `document`, for a request with
    /// `variables`: one kept, or `make`'s, kept while there is room (`weight` tells how many
    /// fields a plan holds).
    pub fn get_or_make<T: Any + Send + Sync>(
        &self,
        document: &ExecutableDocument,
        at: Pos,
        reader: TypeId,
        variables: &Variables,
        make: impl FnOnce() -> T,
        weight: impl FnOnce(&T) -> usize,
    ) -> Arc<T> {
        let read = self.document.get_or_init(|| read(document));
        let names = &read.conditions;
        let fits = |entry: &Entry| {
            entry.at == at
                && entry.reader == reader
                && names
                    .iter()
                    .zip(&entry.conditions)
                    .all(|(name, value)| variables.get(name) == value.as_ref())
        };
        if let Ok(kept) = self.plans.read()
            && let Some(entry) = kept.entries.iter().find(|entry| fits(entry))
            && let Ok(plan) = entry.plan.clone().downcast::<T>()
        {
            return plan;
        }
        let plan = Arc::new(make());
        let conditions = names
            .iter()
            .map(|name| variables.get(name).cloned())
            .collect::<Vec<_>>();
        let flags = conditions
            .iter()
            .all(|value| matches!(value, None | Some(Value::Boolean(_) | Value::Null)));
        let weight = weight(&plan).max(1);
        if flags
            && let Ok(mut kept) = self.plans.write()
            && kept.entries.len() < MAX_KEPT
            && kept.weight + weight <= read.room
            && !kept.entries.iter().any(fits)
        {
            kept.weight += weight;
            kept.entries.push(Entry {
                at,
                reader,
                conditions,
                plan: plan.clone(),
            });
        }
        plan
    }

    /// How many plans it keeps.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.plans.read().map_or(0, |kept| kept.entries.len())
    }
}

/// The plan `R` makes from the field at `at` in the request `ctx` runs: kept with the
/// request's shared document (see the module), or made for this request alone when it runs
/// a document of its own.
pub fn planned<R: 'static, T: Any + Send + Sync, I>(
    ctx: &ContextBase<'_, I>,
    at: Pos,
    make: impl FnOnce() -> T,
    weight: impl FnOnce(&T) -> usize,
) -> Arc<T> {
    match super::prevalidated::running(ctx) {
        Some(parsed) => parsed.kept().get_or_make(
            parsed.document(),
            at,
            TypeId::of::<R>(),
            &ctx.query_env.variables,
            make,
            weight,
        ),
        None => Arc::new(make()),
    }
}

/// The variables that `@skip` and `@include` read in `document`, each once, and the room its
/// plans have.
fn read(document: &ExecutableDocument) -> Read {
    let mut conditions = Vec::new();
    let mut fields = 0;
    let operations: Vec<_> = match &document.operations {
        DocumentOperations::Single(operation) => vec![operation],
        DocumentOperations::Multiple(operations) => operations.values().collect(),
    };
    for operation in operations {
        read_in(
            &operation.node.selection_set.node,
            &mut conditions,
            &mut fields,
        );
    }
    for fragment in document.fragments.values() {
        read_in(
            &fragment.node.selection_set.node,
            &mut conditions,
            &mut fields,
        );
    }
    Read {
        conditions,
        room: fields.saturating_mul(2).min(MAX_WEIGHT),
    }
}

fn read_in(set: &SelectionSet, names: &mut Vec<Name>, fields: &mut usize) {
    use async_graphql::parser::types::Selection;
    for selection in &set.items {
        for directive in selection.node.directives() {
            let directive = &directive.node;
            if !matches!(directive.name.node.as_str(), "skip" | "include") {
                continue;
            }
            // `if` takes a `Boolean!`: a literal or a variable.
            if let Some(value) = directive.get_argument("if")
                && let async_graphql_value::Value::Variable(name) = &value.node
                && !names.contains(name)
            {
                names.push(name.clone());
            }
        }
        match &selection.node {
            Selection::Field(field) => {
                *fields += 1;
                read_in(&field.node.selection_set.node, names, fields)
            }
            Selection::InlineFragment(inline) => {
                read_in(&inline.node.selection_set.node, names, fields)
            }
            Selection::FragmentSpread(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(text: &str) -> ExecutableDocument {
        async_graphql::parser::parse_query(text).expect("parsed")
    }

    fn variables(json: serde_json::Value) -> Variables {
        Variables::from_json(json)
    }

    /// Makes (or finds) the plan of `at` for `vars`; whether it was made now.
    fn made(kept: &Kept, doc: &ExecutableDocument, at: Pos, vars: &Variables) -> bool {
        made_weighing(kept, doc, at, vars, 1)
    }

    /// [`made`], for a plan of `weight` fields.
    fn made_weighing(
        kept: &Kept,
        doc: &ExecutableDocument,
        at: Pos,
        vars: &Variables,
        weight: usize,
    ) -> bool {
        let mut made = false;
        kept.get_or_make(
            doc,
            at,
            TypeId::of::<u8>(),
            vars,
            || made = true,
            |_| weight,
        );
        made
    }

    #[test]
    fn the_conditions_are_the_variables_skip_and_include_read_and_the_room_the_fields() {
        let doc = document(
            "query A($a: Boolean!, $n: Int) { x(first: $n) @include(if: $a) { y @skip(if: true) } } \
             query B($b: Boolean!) { ...F ... @skip(if: $b) { z } } \
             fragment F on Query { w { v @include(if: $c) @skip(if: $a) } }",
        );
        let read = read(&doc);
        let mut names: Vec<_> = read.conditions.iter().map(|n| n.to_string()).collect();
        names.sort();
        assert_eq!(names, ["a", "b", "c"]);
        // Five fields (each once where it is written): room for ten.
        assert_eq!(read.room, 10);
    }

    #[test]
    fn a_plan_is_kept_per_place_reader_and_condition_values() {
        let doc = document("query($a: Boolean!) { x @include(if: $a) { y } z { y } }");
        let kept = Kept::default();
        let (here, there) = (
            Pos {
                line: 1,
                column: 23,
            },
            Pos {
                line: 1,
                column: 47,
            },
        );
        let yes = variables(serde_json::json!({"a": true, "cursor": "one"}));
        assert!(made(&kept, &doc, here, &yes));
        // Another cursor: the same plan.
        let other = variables(serde_json::json!({"a": true, "cursor": "two"}));
        assert!(!made(&kept, &doc, here, &other));
        // Another place, another flag, a flag left out: each its own.
        assert!(made(&kept, &doc, there, &yes));
        let no = variables(serde_json::json!({"a": false}));
        assert!(made(&kept, &doc, here, &no));
        assert!(!made(&kept, &doc, here, &no));
        let none = variables(serde_json::json!({}));
        assert!(made(&kept, &doc, here, &none));
        assert!(!made(&kept, &doc, here, &none));
        // Another reader of the same place.
        let mut again = false;
        kept.get_or_make(
            &doc,
            here,
            TypeId::of::<u16>(),
            &yes,
            || {
                again = true;
                0u16
            },
            |_| 1,
        );
        assert!(again);
        assert_eq!(kept.len(), 5);
    }

    #[test]
    fn a_document_keeps_few_small_plans_and_only_for_flags() {
        let fields: Vec<_> = (0..40).map(|n| format!("y{n}")).collect();
        let doc = document(&format!(
            "query($a: Boolean!) {{ x @include(if: $a) {{ {} }} }}",
            fields.join(" ")
        ));
        let room = read(&doc).room;
        assert_eq!(room, 82);
        let kept = Kept::default();
        let yes = variables(serde_json::json!({"a": true}));
        for line in 0..MAX_KEPT + 8 {
            let at = Pos { line, column: 1 };
            assert!(made(&kept, &doc, at, &yes));
        }
        assert_eq!(kept.len(), MAX_KEPT);
        // Past the bound, made every time.
        let past = Pos {
            line: MAX_KEPT + 1,
            column: 1,
        };
        assert!(made(&kept, &doc, past, &yes));

        // Plans heavier than the room left are made every time.
        let kept = Kept::default();
        let heavy = |at: Pos| made_weighing(&kept, &doc, at, &yes, room / 2);
        let (one, two, three) = (past, Pos { line: 1, column: 2 }, Pos { line: 1, column: 3 });
        assert!(heavy(one) && heavy(two) && !heavy(one) && !heavy(two));
        assert!(heavy(three) && heavy(three));
        assert_eq!(kept.len(), 2);

        let kept = Kept::default();
        let text = variables(serde_json::json!({"a": "x".repeat(1000)}));
        assert!(made(&kept, &doc, past, &text));
        assert!(made(&kept, &doc, past, &text));
        assert_eq!(kept.len(), 0);
    }
}
