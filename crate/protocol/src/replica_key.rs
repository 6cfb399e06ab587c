//! Who a replica is (KIP-853): its node id and the id of its metadata log directory
//! (Kafka's ReplicaKey). A disk wiped and formatted again comes back with the same node id
//! but a new directory id, so the voter set can tell it from the replica it replaced.

use super::ids::NodeId;
use serde::{Serialize, Serializer};
use std::num::NonZeroU64;

/// The `directory.id` that `kafka-storage.sh format` writes to a metadata log directory's
/// meta.properties. Kafka's is a random 128-bit Uuid whose zero value means "none"
/// (ReplicaKey.NO_DIRECTORY_ID); the simulator draws 64 bits, never zero, so `None` of an
/// `Option<DirectoryId>` is Kafka's zero Uuid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DirectoryId(NonZeroU64);

impl DirectoryId {
    /// The least directory id (1).
    pub const MIN: DirectoryId = DirectoryId(NonZeroU64::MIN);

    /// `None` for 0, which is Kafka's "no directory id".
    pub fn new(bits: u64) -> Option<DirectoryId> {
        NonZeroU64::new(bits).map(DirectoryId)
    }

    pub fn bits(self) -> u64 {
        self.0.get()
    }
}

/// Shown as Kafka shows a Uuid: URL-safe base64 without padding (11 characters for the
/// simulator's 64 bits, where Kafka's 128 take 22).
impl std::fmt::Display for DirectoryId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let bytes = self.bits().to_be_bytes();
        let mut bits: u32 = 0;
        let mut held = 0;
        for b in bytes {
            bits = bits << 8 | b as u32;
            held += 8;
            while held >= 6 {
                held -= 6;
                write!(f, "{}", ALPHABET[(bits >> held & 63) as usize] as char)?;
            }
        }
        if held > 0 {
            write!(f, "{}", ALPHABET[(bits << (6 - held) & 63) as usize] as char)?;
        }
        Ok(())
    }
}

impl Serialize for DirectoryId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A replica's identity: node id and, when known, its directory id. A key without a
/// directory id is what a static voter set (controller.quorum.voters) or an older peer
/// knows; it names the node whatever disk it runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ReplicaKey {
    pub id: NodeId,
    #[serde(rename = "directoryId", skip_serializing_if = "Option::is_none")]
    pub directory: Option<DirectoryId>,
}

impl ReplicaKey {
    pub fn new(id: NodeId, directory: Option<DirectoryId>) -> ReplicaKey {
        ReplicaKey { id, directory }
    }

    /// Whether `other` is the replica this key names (Kafka's VoterSet.VoterNode.isVoter and
    /// LeaderState.ReplicaState.matchesKey): the ids agree and, if this key has a directory
    /// id, so do the directory ids. A key without one matches any disk of that node.
    pub fn matches(&self, other: ReplicaKey) -> bool {
        self.id == other.id && (self.directory.is_none() || self.directory == other.directory)
    }
}

impl std::fmt::Display for ReplicaKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.directory {
            Some(d) => write!(f, "{}/{d}", self.id),
            None => write!(f, "{}", self.id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(id: NodeId, dir: u64) -> ReplicaKey {
        ReplicaKey::new(id, DirectoryId::new(dir))
    }

    /// VoterSetTest.testIsVoterWithDirectoryId / testIsVoterWithoutDirectoryId: an entry
    /// without a directory id is the node whatever its disk; with one, only that disk.
    #[test]
    fn a_key_without_a_directory_id_matches_any_disk_of_its_node() {
        assert!(key(1, 0).matches(key(1, 7)));
        assert!(key(1, 0).matches(key(1, 0)));
        assert!(!key(1, 0).matches(key(2, 7)));
        assert!(key(1, 7).matches(key(1, 7)));
        assert!(!key(1, 7).matches(key(1, 8)), "a wiped disk is another replica");
        assert!(!key(1, 7).matches(key(1, 0)), "an unknown disk is not the voter's");
    }

    #[test]
    fn directory_ids_print_as_url_safe_base64() {
        assert_eq!(DirectoryId::new(1).unwrap().to_string(), "AAAAAAAAAAE");
        assert_eq!(DirectoryId::new(u64::MAX).unwrap().to_string(), "__________8");
        assert_eq!(DirectoryId::new(0), None, "zero is Kafka's no-directory Uuid");
        assert_eq!(key(3, 1).to_string(), "3/AAAAAAAAAAE");
    }
}
