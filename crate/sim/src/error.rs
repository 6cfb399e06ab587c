//! The error every simulator call returns: it names the offending field.

/// An error that names the offending field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError {
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl From<(String, String)> for SimError {
    fn from((field, message): (String, String)) -> Self {
        SimError { field, message }
    }
}
