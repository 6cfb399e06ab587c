//! KRaft on the boundary the world drives replicas through (`kraft_boundary`): the unit
//! type that names the protocol, and the boundary's per-input types as KRaft's code
//! names them: what a replica is given for one input ([`Ctx`]) and what it answers with
//! ([`Output`], [`Note`], [`Wake`]). What KRaft implements of the boundary is in
//! `boundary.rs`.

pub use kraft_boundary::{IdSource, Wake};

/// KRaft, as the world and its trace name the protocol (`kraft_boundary::Protocol`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KRaft;

/// Everything a replica may touch while handling one input.
pub type Ctx<'a> = kraft_boundary::Ctx<'a, KRaft>;
/// What a replica asks of the world, in the order it asked.
pub type Output = kraft_boundary::Output<KRaft>;
/// Things worth a trace event, as the replica sees them.
pub type Note = kraft_boundary::Note<KRaft>;
