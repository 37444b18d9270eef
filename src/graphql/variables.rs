//! The values of a request's variables where its operation passes them as arguments, checked
//! against the arguments' types as async-graphql's validation rule "arguments of correct type"
//! checks them, with its messages: for documents validated once ([`super::prevalidated`]),
//! whose rules ran without variables. An argument whose variable is not given is left to
//! execution, as the rule leaves it.

use std::collections::HashSet;

use async_graphql::indexmap::IndexMap;
use async_graphql::parser::types::{Directive, ExecutableDocument, Field, Selection, SelectionSet};
use async_graphql::registry::{MetaInputValue, MetaType, MetaTypeName, Registry};
use async_graphql::{Name, Pos, Positioned, ServerError, Variables};

use super::operation;

mod found;

pub use found::Found;

/// Checks the arguments of the operation `operation_name` names (or the only one) that use
/// `variables`; the first wrong one is the error.
pub fn check(
    registry: &Registry,
    document: &ExecutableDocument,
    operation_name: Option<&str>,
    variables: &Variables,
) -> Result<(), ServerError> {
    check_found(
        registry,
        &find(registry, document, operation_name),
        variables,
    )
}

/// An argument of an operation whose value reads variables, as the document has it: what a
/// request's variables are checked against.
pub struct VariableArgument {
    /// Where its name is, the place of the error.
    pos: Pos,
    name: String,
    ty: String,
    value: async_graphql_value::Value,
}

/// The arguments that read variables of the operation `operation_name` names (or the only
/// one), in the order the document has them (fragments each once); none without an operation
/// to run, which the library refuses before anything runs.
pub fn find(
    registry: &Registry,
    document: &ExecutableDocument,
    operation_name: Option<&str>,
) -> Vec<VariableArgument> {
    let Ok(operation) = operation::find(document, operation_name) else {
        return Vec::new();
    };
    let root = operation::registered_root(registry, operation.ty);
    let mut walk = Walk {
        registry,
        document,
        found: Vec::new(),
    };
    walk.directives(&operation.definition.directives);
    let mut seen = HashSet::new();
    walk.set(
        operation.selection_set,
        root.and_then(|name| registry.types.get(name)),
        &mut seen,
    );
    walk.found
}

/// Checks `found` with `variables`; the first wrong one is the error. An argument whose
/// variable is not given is left to execution.
pub fn check_found(
    registry: &Registry,
    found: &[VariableArgument],
    variables: &Variables,
) -> Result<(), ServerError> {
    for argument in found {
        let Ok(value) = argument
            .value
            .clone()
            .into_const_with(|var| variables.get(&var).cloned().ok_or(()))
        else {
            continue;
        };
        let mut path = vec![argument.name.clone()];
        if let Some(reason) = invalid(registry, &argument.ty, &value, &mut path) {
            return Err(refusal(argument.pos, reason));
        }
    }
    Ok(())
}

struct Walk<'a> {
    registry: &'a Registry,
    document: &'a ExecutableDocument,
    found: Vec<VariableArgument>,
}

impl<'a> Walk<'a> {
    fn set(
        &mut self,
        set: &'a SelectionSet,
        parent: Option<&'a MetaType>,
        seen: &mut HashSet<&'a Name>,
    ) {
        for selection in &set.items {
            match &selection.node {
                Selection::Field(field) => self.field(field, parent, seen),
                Selection::FragmentSpread(spread) => {
                    self.directives(&spread.node.directives);
                    let name = &spread.node.fragment_name.node;
                    // Each fragment once: its arguments are the same wherever it is spread.
                    if !seen.insert(name) {
                        continue;
                    }
                    if let Some(fragment) = self.document.fragments.get(name) {
                        self.directives(&fragment.node.directives);
                        let on = fragment.node.type_condition.node.on.node.as_str();
                        self.set(
                            &fragment.node.selection_set.node,
                            self.registry.types.get(on),
                            seen,
                        );
                    }
                }
                Selection::InlineFragment(inline) => {
                    self.directives(&inline.node.directives);
                    let ty = match &inline.node.type_condition {
                        Some(condition) => self.registry.types.get(condition.node.on.node.as_str()),
                        None => parent,
                    };
                    self.set(&inline.node.selection_set.node, ty, seen);
                }
            }
        }
    }

    fn field(
        &mut self,
        field: &'a Positioned<Field>,
        parent: Option<&'a MetaType>,
        seen: &mut HashSet<&'a Name>,
    ) {
        // The library's visitor passes `__typename` by, arguments and directives alike.
        if field.node.name.node == "__typename" {
            return;
        }
        let meta = parent.and_then(|ty| ty.field_by_name(&field.node.name.node));
        if let Some(meta) = meta {
            self.arguments(&field.node.arguments, &meta.args);
        }
        self.directives(&field.node.directives);
        let ty = meta.and_then(|meta| self.registry.concrete_type_by_name(&meta.ty));
        self.set(&field.node.selection_set.node, ty, seen)
    }

    fn directives(&mut self, directives: &[Positioned<Directive>]) {
        for directive in directives {
            if let Some(meta) = self
                .registry
                .directives
                .get(directive.node.name.node.as_str())
            {
                self.arguments(&directive.node.arguments, &meta.args);
            }
        }
    }

    fn arguments(
        &mut self,
        arguments: &[(Positioned<Name>, Positioned<async_graphql_value::Value>)],
        declared: &IndexMap<String, MetaInputValue>,
    ) {
        for (name, value) in arguments {
            let Some(argument) = declared.get(name.node.as_str()) else {
                continue;
            };
            if !uses_variables(&value.node) {
                // Checked whole at registration.
                continue;
            }
            self.found.push(VariableArgument {
                pos: name.pos,
                name: argument.name.clone(),
                ty: argument.ty.clone(),
                value: value.node.clone(),
            });
        }
    }
}

fn refusal(pos: Pos, reason: String) -> ServerError {
    ServerError::new(format!("Invalid value for argument {reason}"), Some(pos))
}

fn uses_variables(value: &async_graphql_value::Value) -> bool {
    use async_graphql_value::Value as V;
    match value {
        V::Variable(_) => true,
        V::List(items) => items.iter().any(uses_variables),
        V::Object(fields) => fields.values().any(uses_variables),
        _ => false,
    }
}

/// The library's message for `reason` at `path` (segments joined with `.`).
fn at(path: &[String], reason: String) -> String {
    format!("\"{}\", {reason}", path.join("."))
}

/// Why `value` is not a valid input of type `ty`, as async-graphql says it.
fn invalid(
    registry: &Registry,
    ty: &str,
    value: &async_graphql::Value,
    path: &mut Vec<String>,
) -> Option<String> {
    use async_graphql::Value as C;
    match MetaTypeName::create(ty) {
        MetaTypeName::NonNull(inner) => match value {
            C::Null => Some(at(path, format!("expected type \"{inner}\""))),
            _ => invalid(registry, inner, value, path),
        },
        MetaTypeName::List(inner) => match value {
            C::List(items) => items.iter().enumerate().find_map(|(index, item)| {
                path.push(index.to_string());
                let reason = invalid(registry, inner, item, path);
                path.pop();
                reason
            }),
            C::Null => None,
            _ => invalid(registry, inner, value, path),
        },
        MetaTypeName::Named(name) => {
            if let C::Null = value {
                return None;
            }
            match registry.types.get(name)? {
                MetaType::Scalar {
                    is_valid: Some(is_valid),
                    ..
                } => (!is_valid(value)).then(|| at(path, format!("expected type \"{name}\""))),
                MetaType::Scalar { is_valid: None, .. } => None,
                MetaType::Enum {
                    enum_values,
                    name: enum_name,
                    ..
                } => {
                    let given = match value {
                        C::Enum(given) => given.as_str(),
                        C::String(given) => given.as_str(),
                        _ => return Some(at(path, format!("expected type \"{name}\""))),
                    };
                    (!enum_values.contains_key(given)).then(|| {
                        at(
                            path,
                            format!(
                                "enumeration type \"{enum_name}\" does not contain the value \"{given}\""
                            ),
                        )
                    })
                }
                MetaType::InputObject {
                    input_fields,
                    name: object_name,
                    oneof,
                    ..
                } => {
                    let C::Object(values) = value else {
                        return None;
                    };
                    if *oneof {
                        if values.len() != 1 {
                            return Some(at(
                                path,
                                "Oneof input objects requires have exactly one field".into(),
                            ));
                        }
                        if let C::Null = values[0] {
                            return Some(at(
                                path,
                                "Oneof Input Objects require that exactly one field must be supplied and that field must not be null".into(),
                            ));
                        }
                    }
                    let mut unknown: HashSet<&str> = values.keys().map(|k| k.as_str()).collect();
                    for field in input_fields.values() {
                        unknown.remove(field.name.as_str());
                        match values.get(field.name.as_str()) {
                            Some(given) => {
                                path.push(field.name.clone());
                                let reason = invalid(registry, &field.ty, given, path);
                                path.pop();
                                if reason.is_some() {
                                    return reason;
                                }
                            }
                            None if MetaTypeName::create(&field.ty).is_non_null()
                                && field.default_value.is_none() =>
                            {
                                return Some(at(
                                    path,
                                    format!(
                                        "field \"{}\" of type \"{}\" is required but not provided",
                                        field.name, field.ty
                                    ),
                                ));
                            }
                            None => {}
                        }
                    }
                    unknown.iter().next().map(|name| {
                        at(
                            path,
                            format!("unknown field \"{name}\" of type \"{object_name}\""),
                        )
                    })
                }
                _ => None,
            }
        }
    }
}
