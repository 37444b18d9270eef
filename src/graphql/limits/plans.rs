//! A document's cost plans, kept with the parsed document (in the cache of parsed documents)
//! so that a document sent again is not planned again.
//!
//! A plan depends on the document, the operation run and the values of the few variables the
//! planner reads (page sizes, a payment filter, a list of ids); a cursor or any other variable
//! does not change it. So a plan is kept with the values it read, and a request whose
//! variables hold the same values for those names gets the same plan. A document keeps at most
//! [`MAX_PLANS`] plans, the oldest replaced first, and only plans whose values are small
//! ([`MAX_KEY_WEIGHT`]) and that are themselves small ([`MAX_PLANNED`]): a document that
//! varies what its plan depends on costs at most what planning every request did.

use std::sync::{Arc, Mutex};

use async_graphql::{Name, Value, Variables};

use super::cost::Plan;

/// Most plans one document keeps.
const MAX_PLANS: usize = 4;
/// Most a plan's key may weigh: its values' nodes plus their strings' bytes.
const MAX_KEY_WEIGHT: usize = 512;
/// Most fields a kept plan may hold.
const MAX_PLANNED: usize = 1_024;

/// The plans of one document.
#[derive(Default)]
pub struct Plans(Mutex<Vec<Kept>>);

struct Kept {
    operation: Option<String>,
    /// The variables the planner read, and their values (`None`: not given).
    read: Vec<(Name, Option<Value>)>,
    plan: Arc<Plan>,
}

impl Kept {
    fn fits(&self, operation: Option<&str>, variables: &Variables) -> bool {
        self.operation.as_deref() == operation
            && self
                .read
                .iter()
                .all(|(name, value)| variables.get(name) == value.as_ref())
    }
}

impl Plans {
    /// The plan of `operation` for `variables`: one kept, or `make`'s (the plan and the
    /// names of the variables it read), kept if it is small enough.
    pub fn get_or_make(
        &self,
        operation: Option<&str>,
        variables: &Variables,
        make: impl FnOnce() -> (Plan, Vec<Name>),
    ) -> Arc<Plan> {
        if let Ok(kept) = self.0.lock()
            && let Some(found) = kept.iter().find(|k| k.fits(operation, variables))
        {
            return found.plan.clone();
        }
        let (plan, names) = make();
        let plan = Arc::new(plan);
        let mut weight = 0;
        let read = names
            .into_iter()
            .map(|name| {
                let value = variables.get(&name).cloned();
                (name, value)
            })
            .collect::<Vec<_>>();
        let light = read.iter().all(|(name, value)| {
            within(name.len(), &mut weight) && value.as_ref().is_none_or(|v| weighs(v, &mut weight))
        });
        if light
            && plan.fields() <= MAX_PLANNED
            && let Ok(mut kept) = self.0.lock()
            && !kept.iter().any(|k| k.fits(operation, variables))
        {
            if kept.len() >= MAX_PLANS {
                kept.remove(0);
            }
            kept.push(Kept {
                operation: operation.map(str::to_string),
                read,
                plan: plan.clone(),
            });
        }
        plan
    }
}

fn within(add: usize, weight: &mut usize) -> bool {
    *weight = weight.saturating_add(add);
    *weight <= MAX_KEY_WEIGHT
}

/// Adds `value`'s weight; whether the total is still within [`MAX_KEY_WEIGHT`] (stops at the
/// first node past it).
fn weighs(value: &Value, weight: &mut usize) -> bool {
    if !within(1, weight) {
        return false;
    }
    match value {
        Value::String(text) => within(text.len(), weight),
        Value::Enum(name) => within(name.len(), weight),
        Value::Binary(bytes) => within(bytes.len(), weight),
        Value::List(items) => items.iter().all(|item| weighs(item, weight)),
        Value::Object(fields) => fields
            .iter()
            .all(|(name, value)| within(name.len(), weight) && weighs(value, weight)),
        Value::Null | Value::Number(_) | Value::Boolean(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variables(json: serde_json::Value) -> Variables {
        Variables::from_json(json)
    }

    fn plans_made(plans: &Plans, operation: Option<&str>, vars: &Variables) -> usize {
        let mut made = 0;
        plans.get_or_make(operation, vars, || {
            made += 1;
            (Plan::empty(), vec![Name::new("count")])
        });
        made
    }

    #[test]
    fn a_plan_is_kept_for_the_values_it_read_and_nothing_else() {
        let plans = Plans::default();
        let first = variables(serde_json::json!({"count": 50, "cursor": null}));
        assert_eq!(plans_made(&plans, None, &first), 1);
        // Another cursor: the same plan.
        let next = variables(serde_json::json!({"count": 50, "cursor": "abc"}));
        assert_eq!(plans_made(&plans, None, &next), 0);
        // Another page size, or another operation: planned.
        let more = variables(serde_json::json!({"count": 100}));
        assert_eq!(plans_made(&plans, None, &more), 1);
        assert_eq!(plans_made(&plans, Some("Other"), &first), 1);
        // Left out is not null.
        let null = variables(serde_json::json!({"count": null}));
        let none = variables(serde_json::json!({}));
        assert_eq!(plans_made(&plans, None, &null), 1);
        assert_eq!(plans_made(&plans, None, &none), 1);
    }

    #[test]
    fn a_document_keeps_few_plans_and_only_small_keys() {
        let plans = Plans::default();
        for count in 0..=MAX_PLANS {
            let vars = variables(serde_json::json!({ "count": count }));
            assert_eq!(plans_made(&plans, None, &vars), 1);
        }
        assert_eq!(plans.0.lock().unwrap().len(), MAX_PLANS);
        // The oldest went first.
        let oldest = variables(serde_json::json!({"count": 0}));
        assert_eq!(plans_made(&plans, None, &oldest), 1);
        let newest = variables(serde_json::json!({ "count": MAX_PLANS }));
        assert_eq!(plans_made(&plans, None, &newest), 0);

        let heavy = variables(serde_json::json!({ "count": "x".repeat(MAX_KEY_WEIGHT) }));
        let plans = Plans::default();
        assert_eq!(plans_made(&plans, None, &heavy), 1);
        assert_eq!(plans_made(&plans, None, &heavy), 1);
        assert!(plans.0.lock().unwrap().is_empty());
    }
}
