//! A selection set as it will be executed: the fields of an object of one type, merged by
//! response key the way the GraphQL specification's CollectFields does. Fragment spreads and
//! inline fragments are followed when their type condition is the object's type or an
//! interface it implements, as async-graphql's executor decides; `@skip` and `@include` were
//! applied (and removed) before execution. Readers that answer a selection without a resolver
//! per field plan from this, so a document with fragments is answered like one without.

use std::collections::HashMap;
use std::ops::ControlFlow;

use async_graphql::parser::types::{Field, FragmentDefinition, Selection, SelectionSet};
use async_graphql::registry::Registry;
use async_graphql::{Name, Pos, Positioned};

/// The fragments of the document being executed, and the schema's registry.
#[derive(Clone, Copy)]
pub struct Document<'a> {
    pub fragments: &'a HashMap<Name, Positioned<FragmentDefinition>>,
    pub registry: &'a Registry,
}

/// The fields one response key gathers: all of the same name and arguments (validation sees
/// to that), their selection sets to be merged.
pub struct Collected<'a> {
    pub key: &'a Name,
    pub fields: Vec<&'a Positioned<Field>>,
}

impl Collected<'_> {
    /// The field's name (the first's; every field of a key has the same).
    pub fn name(&self) -> &str {
        self.fields[0].node.name.node.as_str()
    }

    /// Whether every field of the key is a plain field: no argument, no directive.
    pub fn is_plain(&self) -> bool {
        self.fields
            .iter()
            .all(|field| field.node.arguments.is_empty() && field.node.directives.is_empty())
    }

    /// Whether the key selects a leaf (no sub-selection).
    pub fn is_leaf(&self) -> bool {
        self.fields
            .iter()
            .all(|field| field.node.selection_set.node.items.is_empty())
    }
}

/// Fragments followed within one collection, at most: validation refuses cycles, and no
/// document a client writes nests fragments deeper.
const MAX_FRAGMENT_HOPS: usize = 16;

impl<'a> Document<'a> {
    /// The merged fields of `sets` (the selection sets of one response key, or a single one)
    /// on an object of type `object`, in the order their keys first appear. `None` when a
    /// fragment or a selection carries a directive (none is left after `@skip`/`@include`
    /// are applied, so any is one the caller does not know), a fragment is unknown, or
    /// fragments nest beyond the bound: such a selection is resolved the usual way.
    pub fn collect(
        &self,
        sets: impl IntoIterator<Item = &'a SelectionSet>,
        object: &str,
    ) -> Option<Vec<Collected<'a>>> {
        let mut out: Vec<Collected<'a>> = Vec::new();
        for set in sets {
            self.collect_into(set, object, 0, &mut out)?;
        }
        Some(out)
    }

    fn collect_into(
        &self,
        set: &'a SelectionSet,
        object: &str,
        hops: usize,
        out: &mut Vec<Collected<'a>>,
    ) -> Option<()> {
        for selection in &set.items {
            if !selection.node.directives().is_empty() {
                return None;
            }
            let (condition, inner) = match &selection.node {
                Selection::Field(field) => {
                    let key = &field.node.response_key().node;
                    match out.iter_mut().find(|c| c.key == key) {
                        Some(collected) => collected.fields.push(field),
                        None => out.push(Collected {
                            key,
                            fields: vec![field],
                        }),
                    }
                    continue;
                }
                Selection::FragmentSpread(spread) => {
                    let fragment = self.fragments.get(&spread.node.fragment_name.node)?;
                    if !fragment.node.directives.is_empty() {
                        return None;
                    }
                    (
                        Some(fragment.node.type_condition.node.on.node.as_str()),
                        &fragment.node.selection_set.node,
                    )
                }
                Selection::InlineFragment(inline) => (
                    inline
                        .node
                        .type_condition
                        .as_ref()
                        .map(|condition| condition.node.on.node.as_str()),
                    &inline.node.selection_set.node,
                ),
            };
            if hops >= MAX_FRAGMENT_HOPS {
                return None;
            }
            if self.applies(condition, object) {
                self.collect_into(inner, object, hops + 1, out)?;
            }
        }
        Some(())
    }

    /// Whether each key of `path`, from `root` down, is given by one field only. async-graphql
    /// resolves each field of a response key on its own and merges their answers; a value
    /// written whole (`super::json`) must be the only one of its key all the way down.
    /// Fragments are followed whatever their type condition, so that no second field of a key
    /// is missed (a fragment that would not apply only makes the answer `false`).
    pub fn given_once(&self, root: &'a SelectionSet, path: &[&str]) -> bool {
        let mut set = root;
        for key in path {
            let mut found = Vec::new();
            if self.keyed(set, key, 0, &mut found).is_none() {
                return false;
            }
            match found.as_slice() {
                [field] => set = &field.node.selection_set.node,
                _ => return false,
            }
        }
        true
    }

    /// The fields of `set` with the response key `key`, into `found`; `None` when a fragment
    /// is unknown or fragments nest beyond the bound.
    fn keyed(
        &self,
        set: &'a SelectionSet,
        key: &str,
        hops: usize,
        found: &mut Vec<&'a Positioned<Field>>,
    ) -> Option<()> {
        self.visit::<()>(set, hops, &mut |field| {
            if field.node.response_key().node == key {
                found.push(field);
            }
            ControlFlow::Continue(())
        })
        .map(|_| ())
    }

    /// The field at `at` within `set` (its fields, and those of the fragments it spreads,
    /// whatever their type condition: a place names one field of the document); `None` when
    /// it is not there, a fragment is unknown or fragments nest beyond the bound.
    pub fn field_at(&self, set: &'a SelectionSet, at: Pos) -> Option<&'a Positioned<Field>> {
        match self.visit(set, 0, &mut |field| match field.pos == at {
            true => ControlFlow::Break(field),
            false => ControlFlow::Continue(()),
        })? {
            ControlFlow::Break(field) => Some(field),
            ControlFlow::Continue(()) => None,
        }
    }

    /// Calls `visit` on each field of `set` and of the fragments it spreads, whatever their
    /// type condition, until it breaks; `None` when a fragment is unknown or fragments nest
    /// beyond the bound.
    fn visit<B>(
        &self,
        set: &'a SelectionSet,
        hops: usize,
        visit: &mut impl FnMut(&'a Positioned<Field>) -> ControlFlow<B>,
    ) -> Option<ControlFlow<B>> {
        for selection in &set.items {
            let inner = match &selection.node {
                Selection::Field(field) => {
                    if let ControlFlow::Break(found) = visit(field) {
                        return Some(ControlFlow::Break(found));
                    }
                    continue;
                }
                Selection::FragmentSpread(spread) => {
                    &self
                        .fragments
                        .get(&spread.node.fragment_name.node)?
                        .node
                        .selection_set
                        .node
                }
                Selection::InlineFragment(inline) => &inline.node.selection_set.node,
            };
            if hops >= MAX_FRAGMENT_HOPS {
                return None;
            }
            if let ControlFlow::Break(found) = self.visit(inner, hops + 1, visit)? {
                return Some(ControlFlow::Break(found));
            }
        }
        Some(ControlFlow::Continue(()))
    }

    /// Whether a fragment on `condition` applies to an object of type `object`: no condition,
    /// the object's own type, or an interface it implements.
    fn applies(&self, condition: Option<&str>, object: &str) -> bool {
        condition.is_none_or(|condition| {
            condition == object
                || self
                    .registry
                    .implements
                    .get(object)
                    .is_some_and(|interfaces| interfaces.contains(condition))
        })
    }
}

#[cfg(test)]
mod tests;
