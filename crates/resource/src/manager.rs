//! Typed resources, one loaded instance per path (V12: "only one instance of a resource
//! will ever be loaded at a time"): a second request for a loaded path returns the same
//! instance, and the instance is freed with its last [`Resource`] handle.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Deref;
use std::path::Path;
use std::rc::{Rc, Weak};
use std::sync::Arc;

use crate::error::{ErrorKind, ResourceError};
use crate::path;
use crate::search::SearchPath;

/// A shared handle to a loaded resource.
#[derive(Debug)]
pub struct Resource<T>(Rc<T>);

impl<T> Clone for Resource<T> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T> Deref for Resource<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> Resource<T> {
    /// True when both handles hold the same instance.
    pub fn ptr_eq(a: &Self, b: &Self) -> bool {
        Rc::ptr_eq(&a.0, &b.0)
    }

    /// The instance as a plain `Rc` (for a type that wants one, such as a trait object). It
    /// keeps the instance alive like a handle, and the manager still hands out the same one.
    pub fn to_rc(&self) -> Rc<T> {
        self.0.clone()
    }
}

type LoaderFn = dyn Fn(&[u8], &str) -> Result<Box<dyn Any>, String>;

/// The search path, the loaders and the loaded instances.
#[derive(Default)]
pub struct ResourceManager {
    search: SearchPath,
    loaders: HashMap<(TypeId, String), Box<LoaderFn>>,
    loaded: RefCell<HashMap<(TypeId, String), Weak<dyn Any>>>,
    /// The instances [`Self::load_shared`] handed out, apart from [`Self::load`]'s.
    shared: RefCell<HashMap<(TypeId, String), std::sync::Weak<dyn Any + Send + Sync>>>,
}

impl std::fmt::Debug for ResourceManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceManager")
            .field("search", &self.search)
            .field("loaders", &self.loaders.len())
            .field("loaded", &self.loaded_count())
            .finish()
    }
}

impl ResourceManager {
    /// No mods, no loaders.
    pub fn new() -> Self {
        Self::default()
    }

    /// The search path (reads, `find`, `is_file`, `file_crc`).
    pub fn search(&self) -> &SearchPath {
        &self.search
    }

    /// Adds a mod folder over the ones before it (see [`SearchPath::add_mod`]).
    pub fn add_mod(&mut self, dir: &Path) -> Result<Vec<ResourceError>, ResourceError> {
        self.search.add_mod(dir)
    }

    /// Registers how files ending in `.ext` become a `T`. A later registration for the same
    /// type and extension replaces the earlier one.
    pub fn register_loader<T: 'static>(
        &mut self,
        ext: &str,
        load: impl Fn(&[u8], &str) -> Result<T, String> + 'static,
    ) {
        let ext = ext.trim_start_matches('.').to_lowercase();
        let f: Box<LoaderFn> =
            Box::new(move |bytes, path| load(bytes, path).map(|t| Box::new(t) as Box<dyn Any>));
        self.loaders.insert((TypeId::of::<T>(), ext), f);
    }

    /// The resource at `path` as a `T`: the instance already loaded if there is one, else a
    /// new one from the file through the loader for its extension.
    pub fn load<T: 'static>(&self, path: &str) -> Result<Resource<T>, ResourceError> {
        let k = path::key(path).ok_or_else(|| ResourceError::new(path, ErrorKind::OutsideRoot))?;
        let slot = (TypeId::of::<T>(), k.clone());
        if let Some(rc) = self.loaded.borrow().get(&slot).and_then(Weak::upgrade)
            && let Ok(t) = rc.downcast::<T>()
        {
            return Ok(Resource(t));
        }
        let t: Rc<T> = Rc::from(self.read_new::<T>(path, &k)?);
        let erased: Rc<dyn Any> = t.clone();
        let mut loaded = self.loaded.borrow_mut();
        loaded.retain(|_, w| w.strong_count() > 0);
        loaded.insert(slot, Rc::downgrade(&erased));
        Ok(Resource(t))
    }

    /// The resource at `path` as a `T` that threads may share (an `Arc`), through the same
    /// loader as [`Self::load`]: the instance already loaded this way if there is one (one
    /// per path while any `Arc` to it lives), else a new one from the file. An instance
    /// loaded with [`Self::load`] is not this one: a path read both ways is loaded twice.
    pub fn load_shared<T: Send + Sync + 'static>(&self, path: &str) -> Result<Arc<T>, ResourceError> {
        let k = path::key(path).ok_or_else(|| ResourceError::new(path, ErrorKind::OutsideRoot))?;
        let slot = (TypeId::of::<T>(), k.clone());
        if let Some(arc) = self.shared.borrow().get(&slot).and_then(std::sync::Weak::upgrade)
            && let Ok(t) = arc.downcast::<T>()
        {
            return Ok(t);
        }
        let t: Arc<T> = Arc::from(self.read_new::<T>(path, &k)?);
        let erased: Arc<dyn Any + Send + Sync> = t.clone();
        let mut shared = self.shared.borrow_mut();
        shared.retain(|_, w| w.strong_count() > 0);
        shared.insert(slot, Arc::downgrade(&erased));
        Ok(t)
    }

    /// A new `T` from the file at `path` (key `k`) through the loader for its extension.
    fn read_new<T: 'static>(&self, path: &str, k: &str) -> Result<Box<T>, ResourceError> {
        let ext = k.rsplit_once('.').map(|(_, e)| e.to_string()).unwrap_or_default();
        let loader = self
            .loaders
            .get(&(TypeId::of::<T>(), ext))
            .ok_or_else(|| ResourceError::new(path, ErrorKind::NoLoader))?;
        let bytes = self.search.read(path)?;
        let any = loader(&bytes, path).map_err(|why| ResourceError::new(path, ErrorKind::Load(why)))?;
        any.downcast::<T>()
            .map_err(|_| ResourceError::new(path, ErrorKind::Load("loader made another type".into())))
    }

    /// Instances alive now (freed ones are not counted), loaded either way.
    pub fn loaded_count(&self) -> usize {
        self.loaded.borrow().values().filter(|w| w.strong_count() > 0).count()
            + self.shared.borrow().values().filter(|w| w.strong_count() > 0).count()
    }
}
