//! A list of named definitions (structs, class templates, alias templates) in the order
//! they were defined, with an index by name: a header such as CuTe's defines thousands, and
//! every type the front end resolves asks for several names, so a lookup must not walk the
//! list. Defining a name again replaces the old definition and moves it to the end, as a
//! later definition in the text would.

use std::collections::HashMap;
use std::ops::Deref;

/// What a [`Named`] list holds: a definition with a name.
pub trait HasName {
    /// The qualified name the definition is looked up by.
    fn name(&self) -> &str;
}

/// Definitions in definition order, each name once, found by name in constant time.
#[derive(Clone, Debug)]
pub struct Named<T> {
    items: Vec<T>,
    index: HashMap<String, usize>,
}

impl<T> Default for Named<T> {
    fn default() -> Self {
        Named {
            items: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<T: HasName> Named<T> {
    /// Adds `item`, replacing (and moving to the end) one of the same name.
    pub fn define(&mut self, item: T) {
        if let Some(old) = self.index.remove(item.name()) {
            self.items.remove(old);
            for i in self.index.values_mut() {
                if *i > old {
                    *i -= 1;
                }
            }
        }
        self.index.insert(item.name().to_owned(), self.items.len());
        self.items.push(item);
    }

    /// The definition named `name`.
    pub fn get(&self, name: &str) -> Option<&T> {
        self.index.get(name).map(|&i| &self.items[i])
    }

    /// Whether `name` is defined.
    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// The definitions, in order.
    pub fn into_vec(self) -> Vec<T> {
        self.items
    }
}

impl<T: HasName> From<Vec<T>> for Named<T> {
    fn from(items: Vec<T>) -> Self {
        let mut out = Named::default();
        for item in items {
            out.define(item);
        }
        out
    }
}

impl<T> Deref for Named<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.items
    }
}

impl HasName for crate::model::StructDef {
    fn name(&self) -> &str {
        &self.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq)]
    struct D(&'static str, u32);
    impl HasName for D {
        fn name(&self) -> &str {
            self.0
        }
    }

    #[test]
    fn a_name_defined_again_replaces_the_old_one_at_the_end() {
        let mut n = Named::default();
        n.define(D("a", 1));
        n.define(D("b", 2));
        n.define(D("c", 3));
        n.define(D("a", 4));
        assert_eq!(&*n, [D("b", 2), D("c", 3), D("a", 4)]);
        assert_eq!(n.get("a"), Some(&D("a", 4)));
        assert_eq!(n.get("c"), Some(&D("c", 3)));
        assert!(n.contains("b") && !n.contains("z"));
        let again = Named::from(n.clone().into_vec());
        assert_eq!(again.get("b"), Some(&D("b", 2)));
    }
}
