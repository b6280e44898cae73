//! A home's lock, and where a lock entry's plugin lives in a home (here, not in `store`, so
//! that `store` does not depend on the lock).

use super::{Entry, Lock, LockError};

impl crate::store::Home {
    /// The home's lockfile, loaded in its host's format (an empty lock when absent); saving
    /// it writes the home's host record first when there is none.
    pub fn load_lock(&self) -> Result<Lock, LockError> {
        let mut lock = Lock::load(&self.lockfile(), self.dialect)?;
        lock.host_record = Some((self.host_record(), self.dialect));
        Ok(lock)
    }

    /// The directory of a locked plugin. A lock entry whose id cannot be a
    /// directory name is an error naming the entry, never a path elsewhere.
    pub fn locked_dir(&self, entry: &Entry) -> Result<std::path::PathBuf, LockError> {
        Ok(self.plugin_dir(&self.locked_name(entry)?))
    }

    /// A lock entry's id as a [`crate::name::Name`], or an error naming the entry.
    pub fn locked_name(&self, entry: &Entry) -> Result<crate::name::Name, LockError> {
        crate::name::Name::new(&entry.id).map_err(|why| LockError::UnsafeId {
            path: self.lockfile().display().to_string(),
            id: entry.id.clone(),
            why,
        })
    }
}
