//! The arguments that read variables, found once per document and operation.

use std::sync::{Arc, Mutex};

use async_graphql::parser::types::ExecutableDocument;
use async_graphql::registry::Registry;
use async_graphql::{ServerError, Variables};

use super::{VariableArgument, check_found, find};
use crate::graphql::operation;

/// The arguments that read variables of each operation of one document, found the first time
/// the operation runs against a schema and kept with the document: a request then checks its
/// variables against those arguments without walking the document. Only an operation the
/// document has is kept, so it holds at most two lists (by name, and unnamed) per operation
/// and schema.
#[derive(Default)]
pub struct Found(Mutex<Vec<Kept>>);

/// The arguments found for one operation (by the name a request gave, if any) of one schema
/// (by the address of its registry, which lives as long as the schema).
type Kept = (usize, Option<String>, Arc<[VariableArgument]>);

impl Found {
    /// [`super::check`], with the arguments found once.
    pub fn check(
        &self,
        registry: &Registry,
        document: &ExecutableDocument,
        operation_name: Option<&str>,
        variables: &Variables,
    ) -> Result<(), ServerError> {
        check_found(
            registry,
            &self.of(registry, document, operation_name),
            variables,
        )
    }

    fn of(
        &self,
        registry: &Registry,
        document: &ExecutableDocument,
        operation_name: Option<&str>,
    ) -> Arc<[VariableArgument]> {
        let schema = std::ptr::from_ref(registry) as usize;
        let kept = |list: &[Kept]| {
            list.iter()
                .find(|(of, name, _)| *of == schema && name.as_deref() == operation_name)
                .map(|(_, _, found)| found.clone())
        };
        if let Some(found) = kept(&self.0.lock().unwrap_or_else(|e| e.into_inner())) {
            return found;
        }
        let found: Arc<[VariableArgument]> = find(registry, document, operation_name).into();
        if operation::find(document, operation_name).is_ok() {
            let mut list = self.0.lock().unwrap_or_else(|e| e.into_inner());
            if kept(&list).is_none() {
                list.push((schema, operation_name.map(str::to_string), found.clone()));
            }
        }
        found
    }

    /// How many operations' arguments it keeps.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.0.lock().map_or(0, |list| list.len())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use async_graphql::{Request, Variables};
    use serde_json::json;

    use crate::graphql::prevalidated::{Parsed, Prevalidated, Registered};
    use crate::graphql::{Mutation, Query, Subscription};

    /// Each operation of a document run by its shared copy is checked against its own
    /// arguments, found once and then kept, with the message and place validation gives.
    #[tokio::test]
    async fn each_operation_is_checked_against_its_own_arguments_found_once() {
        let schema = async_graphql::Schema::build(Query, Mutation, Subscription)
            .extension(Prevalidated)
            .finish();
        let text = "query A($n: Int) { payments(first: $n) { totalCount } } \
                    query B($b: Boolean!) { viewer { id @skip(if: $b) } }";
        let parsed = Arc::new(Parsed::new(
            async_graphql::parser::parse_query(text).expect("parsed"),
        ));
        let request = |operation: &str, variables: serde_json::Value| {
            let mut request = Request::new(text).variables(Variables::from_json(variables));
            request.operation_name = Some(operation.to_string());
            request
        };
        let shared = |mut request: Request| {
            parsed.mark(&mut request);
            request.set_parsed_query(parsed.document().clone());
            request
        };
        // Validation passes (the field itself fails: no database in this schema).
        schema
            .execute(shared(request("B", json!({"b": true}))))
            .await;
        assert!(parsed.validated());
        for _ in 0..2 {
            for (operation, variables) in [("A", json!({"n": "three"})), ("B", json!({"b": 3}))] {
                let validated = schema.execute(request(operation, variables.clone())).await;
                let checked = schema.execute(shared(request(operation, variables))).await;
                assert_eq!(checked.errors.len(), 1, "{operation}: {:?}", checked.errors);
                let (checked, validated) = (&checked.errors[0], &validated.errors[0]);
                assert_eq!(checked.message, validated.message, "{operation}");
                assert_eq!(checked.locations, validated.locations, "{operation}");
            }
        }
        // A name the document does not have is refused by the library; nothing is kept for it.
        let missing = schema.execute(shared(request("C", json!({})))).await;
        assert!(!missing.errors.is_empty());
        assert_eq!(parsed.kept_operations(), 2);

        // A trusted document (marked so when its id was resolved) keeps its arguments from the
        // first request on.
        let trusted = Arc::new(Parsed::new(
            async_graphql::parser::parse_query(text).expect("parsed"),
        ));
        let mut request = request("A", json!({"n": "three"})).data(Registered);
        trusted.mark(&mut request);
        request.set_parsed_query(trusted.document().clone());
        let checked = schema.execute(request).await;
        assert_eq!(checked.errors.len(), 1, "{:?}", checked.errors);
        assert!(checked.errors[0].message.contains("expected type \"Int\""));
        assert_eq!(trusted.kept_operations(), 1);
    }
}
