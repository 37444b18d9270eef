//! graphpay: a GraphQL payments gateway.

pub mod cli;
pub mod config;
pub mod domain;
pub mod error;
pub mod graphql;
pub mod http;
pub mod merchant_webhooks;
pub mod metrics;
pub mod persistence;
pub mod processor;
pub mod replicas;
pub mod sandbox;
pub mod service;
pub mod startup;
pub mod telemetry;
pub mod tls;
