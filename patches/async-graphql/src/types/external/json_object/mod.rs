mod btreemap;
#[cfg(feature = "hashbrown")]
mod hashbrown_hashmap;
mod hashmap;
