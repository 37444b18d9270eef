//! Integration tests: each starts the real gateway on an ephemeral port and talks to it over
//! HTTP, on SQLite and (when `TEST_DATABASE_URL` is set) on PostgreSQL.

mod helpers;

mod auth;
mod breaker;
mod capture;
mod checkout_browser;
mod cli;
mod client_tokens;
mod cluster_selftest;
mod connections;
mod cors;
mod customer_action;
mod customer_action_browser;
mod dashboard_browser;
mod errors;
mod event_log;
mod feed;
mod graphql_over_http;
mod health;
mod hostile;
mod http_audit;
mod key_roll;
mod lifecycle;
mod lifecycle_props;
mod limits;
mod merchant_data;
mod merchant_webhooks;
mod metrics;
mod network;
mod nodes;
mod pagination;
mod pagination_props;
mod payments;
mod persistence;
mod playground;
mod rail;
mod schema;
mod secrets_at_rest;
mod selections;
mod signing_keys;
mod subscriptions;
mod total_count;
mod trusted_documents;
mod webhook_pages;
mod webhook_secret_roll;
