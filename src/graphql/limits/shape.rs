//! Bounds checked on a parsed document before it is validated: fragment cycles, how many
//! selections it has with every fragment expanded, and how deep its fields nest; then, among
//! the refusals before validation, a document without an operation to run
//! ([`crate::graphql::operation`] decides which one runs).
//!
//! Each fragment is measured once and its measure reused wherever it is spread, so a document
//! whose fragments spread each other two at a time (a few hundred bytes that expand to
//! millions of fields) is measured in time linear in its length, and refused before anything
//! expands it.

use std::collections::{HashMap, HashSet};

use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};

use crate::graphql::operation::NoOperation;

/// Nesting of selection sets, fragment spreads and inline fragments together; beyond it,
/// async-graphql's own recursion guard would refuse the document with a less useful code.
pub const MAX_NESTING: usize = 32;

#[derive(Clone, Copy, Debug)]
pub struct ShapeLimits {
    /// Deepest nesting of fields (`{ viewer { id } }` is 2).
    pub max_depth: usize,
    /// Most selections in the document with every fragment expanded.
    pub max_selections: u64,
}

#[derive(Debug, PartialEq, Eq)]
pub enum ShapeRefusal {
    FragmentCycle(String),
    UnknownFragment(String),
    TooManySelections { max: u64 },
    TooDeep { depth: usize, max: usize },
    NestedTooDeep,
    OperationNameRequired,
    UnknownOperation(String),
    NoOperation,
}

impl From<&NoOperation> for ShapeRefusal {
    fn from(refusal: &NoOperation) -> Self {
        match refusal {
            NoOperation::NameRequired => ShapeRefusal::OperationNameRequired,
            NoOperation::UnknownName(name) => ShapeRefusal::UnknownOperation(name.clone()),
            NoOperation::Missing => ShapeRefusal::NoOperation,
        }
    }
}

impl ShapeRefusal {
    /// Whether the document is refused for its size (`QUERY_TOO_COMPLEX`) rather than for not
    /// validating (`GRAPHQL_VALIDATION_FAILED`).
    pub fn is_size(&self) -> bool {
        matches!(
            self,
            ShapeRefusal::TooManySelections { .. }
                | ShapeRefusal::TooDeep { .. }
                | ShapeRefusal::NestedTooDeep
        )
    }

    pub fn message(&self) -> String {
        match self {
            ShapeRefusal::UnknownFragment(name) => {
                format!("the document spreads `{name}`, which it does not define")
            }
            ShapeRefusal::FragmentCycle(name) => {
                format!("fragment `{name}` spreads itself, directly or through other fragments")
            }
            ShapeRefusal::TooManySelections { max } => format!(
                "the document has more than {max} selections once its fragments are expanded"
            ),
            ShapeRefusal::TooDeep { depth, max } => {
                format!("the query nests fields {depth} deep; at most {max} are allowed")
            }
            ShapeRefusal::NestedTooDeep => format!(
                "the document nests selections and fragments deeper than {MAX_NESTING} levels"
            ),
            ShapeRefusal::OperationNameRequired => "the document has several operations; say \
                which one to run in `operationName`"
                .into(),
            ShapeRefusal::UnknownOperation(name) => {
                format!("the document has no operation named `{name}`")
            }
            ShapeRefusal::NoOperation => "the document has no operation to run".into(),
        }
    }
}

/// What a selection set amounts to once expanded.
#[derive(Clone, Copy, Debug, Default)]
struct Measure {
    selections: u64,
    /// Field depth below this set.
    depth: usize,
    /// Levels of nested sets (of fields, inline fragments and spreads) below this set.
    height: usize,
}

struct Measurer<'a> {
    doc: &'a ExecutableDocument,
    memo: HashMap<&'a str, Measure>,
    visiting: HashSet<&'a str>,
}

impl<'a> Measurer<'a> {
    fn set(&mut self, set: &'a SelectionSet, level: usize) -> Result<Measure, ShapeRefusal> {
        if level > MAX_NESTING {
            return Err(ShapeRefusal::NestedTooDeep);
        }
        let mut total = Measure::default();
        for item in &set.items {
            let (inner, own, field) = match &item.node {
                Selection::Field(field) => {
                    let set = &field.node.selection_set.node;
                    if set.items.is_empty() {
                        total.selections = total.selections.saturating_add(1);
                        total.depth = total.depth.max(1);
                        continue;
                    }
                    (self.set(set, level + 1)?, 1, 1)
                }
                Selection::InlineFragment(inline) => {
                    (self.set(&inline.node.selection_set.node, level + 1)?, 0, 0)
                }
                Selection::FragmentSpread(spread) => (
                    self.fragment(&spread.node.fragment_name.node, level + 1)?,
                    0,
                    0,
                ),
            };
            total.selections = total
                .selections
                .saturating_add(own)
                .saturating_add(inner.selections);
            total.depth = total.depth.max(inner.depth + field);
            total.height = total.height.max(inner.height + 1);
        }
        Ok(total)
    }

    fn fragment(&mut self, name: &'a str, level: usize) -> Result<Measure, ShapeRefusal> {
        if let Some(measure) = self.memo.get(name) {
            if level + measure.height > MAX_NESTING {
                return Err(ShapeRefusal::NestedTooDeep);
            }
            return Ok(*measure);
        }
        let Some(fragment) = self.doc.fragments.get(name) else {
            return Err(ShapeRefusal::UnknownFragment(name.to_string()));
        };
        if !self.visiting.insert(name) {
            return Err(ShapeRefusal::FragmentCycle(name.to_string()));
        }
        let measure = self.set(&fragment.node.selection_set.node, level)?;
        self.visiting.remove(name);
        self.memo.insert(name, measure);
        Ok(measure)
    }
}

/// Measures every operation and fragment of `doc`.
pub fn check(doc: &ExecutableDocument, limits: ShapeLimits) -> Result<(), ShapeRefusal> {
    let mut measurer = Measurer {
        doc,
        memo: HashMap::new(),
        visiting: HashSet::new(),
    };
    let mut selections = 0u64;
    for name in doc.fragments.keys() {
        selections = selections.saturating_add(measurer.fragment(name.as_str(), 1)?.selections);
    }
    for (_, operation) in doc.operations.iter() {
        let measure = measurer.set(&operation.node.selection_set.node, 0)?;
        selections = selections.saturating_add(measure.selections);
        if measure.depth > limits.max_depth {
            return Err(ShapeRefusal::TooDeep {
                depth: measure.depth,
                max: limits.max_depth,
            });
        }
    }
    if selections > limits.max_selections {
        return Err(ShapeRefusal::TooManySelections {
            max: limits.max_selections,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graphql::operation;
    use async_graphql::parser::parse_query;

    const LIMITS: ShapeLimits = ShapeLimits {
        max_depth: 15,
        max_selections: 5_000,
    };

    /// The shape, then the operation to run, in the order the query limits check them.
    fn shape(text: &str, name: Option<&str>) -> Result<(), ShapeRefusal> {
        let doc = parse_query(text).expect("parses");
        check(&doc, LIMITS)?;
        operation::find(&doc, name)
            .map(|_| ())
            .map_err(|refusal| ShapeRefusal::from(&refusal))
    }

    /// `fragment F0 on Query { viewer { id name } } fragment Fk on Query { ...F(k-1) ak:
    /// viewer { id } ...F(k-1) }` and `{ ...F(levels) }`: 2^levels selections from a few
    /// hundred bytes.
    pub fn fan_out(levels: usize) -> String {
        let mut text = String::from("fragment F0 on Query { viewer { id name } }\n");
        for k in 1..=levels {
            text.push_str(&format!(
                "fragment F{k} on Query {{ ...F{p} a{k}: viewer {{ id }} ...F{p} }}\n",
                p = k - 1
            ));
        }
        text.push_str(&format!("{{ ...F{levels} }}"));
        text
    }

    #[test]
    fn ordinary_queries_pass() {
        assert_eq!(shape("{ viewer { id name } }", None), Ok(()));
        assert_eq!(
            shape(
                "query A { viewer { id } } query B { viewer { name } }",
                Some("B")
            ),
            Ok(())
        );
        assert_eq!(shape(&fan_out(8), None), Ok(()));
    }

    #[test]
    fn fragments_that_fan_out_are_refused_for_their_expanded_size() {
        for levels in [12, 24, 28] {
            assert_eq!(
                shape(&fan_out(levels), None),
                Err(ShapeRefusal::TooManySelections { max: 5_000 }),
                "{levels} levels"
            );
        }
        // Longer chains nest spreads deeper than any document may.
        for levels in [60, 400] {
            assert_eq!(
                shape(&fan_out(levels), None),
                Err(ShapeRefusal::NestedTooDeep),
                "{levels} levels"
            );
        }
    }

    #[test]
    fn fragments_that_only_spread_each_other_add_up_too() {
        // Each spread counts, even where the fragments select no field at all.
        let mut text = String::from("fragment F0 on Query { __typename }\n");
        for k in 1..=28 {
            text.push_str(&format!(
                "fragment F{k} on Query {{ ...F{p} ...F{p} }}\n",
                p = k - 1
            ));
        }
        text.push_str("{ ...F28 }");
        assert_eq!(
            shape(&text, None),
            Err(ShapeRefusal::TooManySelections { max: 5_000 })
        );
    }

    #[test]
    fn unknown_fragments_are_refused() {
        assert_eq!(
            shape("fragment A on Query { ...Nope } { ...A }", None),
            Err(ShapeRefusal::UnknownFragment("Nope".into()))
        );
    }

    #[test]
    fn fragment_cycles_are_found() {
        let text = "fragment A on Query { ...B } fragment B on Query { ...A } { ...A }";
        assert!(matches!(
            shape(text, None),
            Err(ShapeRefusal::FragmentCycle(_))
        ));
        let text = "fragment A on Query { viewer { ...A } } { ...A }";
        assert!(matches!(
            shape(text, None),
            Err(ShapeRefusal::FragmentCycle(_))
        ));
    }

    #[test]
    fn depth_counts_fields_through_fragments() {
        let mut inner = String::from("id");
        for _ in 0..7 {
            inner = format!("payment {{ refunds {{ {inner} }} }}");
        }
        let text = format!("fragment R on Refund {{ {inner} }} {{ node(id: \"x\") {{ ...R }} }}");
        assert_eq!(
            shape(&text, None),
            Err(ShapeRefusal::TooDeep { depth: 16, max: 15 })
        );
    }

    #[test]
    fn long_chains_of_spreads_are_refused_without_deep_recursion() {
        let mut text = String::from("fragment F0 on Query { viewer { id } }\n");
        for k in 1..=2_000 {
            text.push_str(&format!("fragment F{k} on Query {{ ...F{} }}\n", k - 1));
        }
        text.push_str("{ ...F2000 }");
        assert_eq!(shape(&text, None), Err(ShapeRefusal::NestedTooDeep));
    }

    #[test]
    fn the_operation_to_run_must_be_named_when_there_are_several() {
        let text = "query A { viewer { id } } query B { viewer { id } }";
        assert_eq!(shape(text, None), Err(ShapeRefusal::OperationNameRequired));
        assert_eq!(
            shape(text, Some("C")),
            Err(ShapeRefusal::UnknownOperation("C".into()))
        );
    }
}
