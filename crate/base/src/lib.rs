//! What every layer of KRaft Playground uses and none owns: the deterministic RNG
//! (`rng`), collections whose clones share their unchanged parts and the meter that
//! counts their bytes (`shared`), a small allocation-free sort (`small_sort`), user-facing
//! error text (`messages`) and the bounded-number type (`limit`).

pub mod limit;
pub mod messages;
pub mod rng;
pub mod shared;
pub mod small_sort;
