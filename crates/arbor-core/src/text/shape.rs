//! Line shapes: what a format's lines are parsed into on the worker threads (`Shape`, declared
//! with `line_shape!`), the chunk of whole lines and arena they are parsed in (`ChunkArena`), and
//! a parsed chunk with its shape forgotten (`AheadParsed`), as it travels between the threads
//! that read, parse and route it.

use crate::reader::{Block, LineEnd};

/// A format's parse for lines read ahead (`formats::Format::parse_ahead`).
pub type ParseAhead = fn(ChunkArena) -> Box<dyn AheadParsed>;

/// `formats::Format::parse_ahead` for a format whose machines read lines of shape `S`.
pub fn ahead<S: Shape>(owner: ChunkArena) -> Box<dyn AheadParsed> {
    erase::<S>(S::parse(owner))
}

/// A chunk parsed as `S`, its type forgotten (to be sent back whole to the thread that made it).
pub(crate) fn erase<S: Shape>(parsed: S::Parsed) -> Box<dyn AheadParsed> {
    Box::new(Ahead::<S>(parsed))
}

/// A chunk parsed ahead into some format's shape, its type forgotten until a machine takes it.
pub trait AheadParsed: Send {
    fn owner(&self) -> &ChunkArena;
    fn into_owner(self: Box<Self>) -> ChunkArena;
    fn as_any(&self) -> &dyn std::any::Any;
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}

struct Ahead<S: Shape>(S::Parsed);

impl<S: Shape> AheadParsed for Ahead<S> {
    fn owner(&self) -> &ChunkArena {
        S::owner(&self.0)
    }

    fn into_owner(self: Box<Self>) -> ChunkArena {
        S::into_owner(self.0)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

/// `f` of a chunk parsed ahead, read as shape `S`: in place when it was parsed as `S` (the box is
/// given back as it came: nothing is moved or allocated), else after it is parsed again here (a
/// format whose machine reads another shape than it said).
pub(crate) fn with_shape<S: Shape, R>(
    mut parsed: Box<dyn AheadParsed>,
    f: impl FnOnce(&S::Parsed) -> R,
) -> (Box<dyn AheadParsed>, R) {
    loop {
        if let Some(done) = parsed.as_any().downcast_ref::<Ahead<S>>() {
            let r = f(&done.0);
            return (parsed, r);
        }
        parsed = erase::<S>(S::parse(parsed.into_owner()));
    }
}

/// What a format's lines are parsed into, on the worker threads (see `line_shape!`).
pub trait Shape: 'static {
    type Line<'a>;
    /// A chunk that owns its bytes and arena together with its parsed lines, which borrow them.
    type Parsed: Send + 'static;

    fn parse(owner: ChunkArena) -> Self::Parsed;
    fn owner(parsed: &Self::Parsed) -> &ChunkArena;
    fn lines(parsed: &Self::Parsed) -> &[Option<Self::Line<'_>>];
    fn into_owner(parsed: Self::Parsed) -> ChunkArena;

    /// Bring a parsed line into the routing core's cache a few lines before it is routed.
    fn prefetch(_line: &Self::Line<'_>) {}
}

/// A chunk of whole lines, and the arena its lines' boxed parts are made in.
pub struct ChunkArena {
    pub(crate) chunk: Block,
    pub(crate) arena: bumpalo::Bump,
}

/// Declares a line shape: `line_shape!(Shape, cells_module, Line, parse_fn, prefetch_fn)` makes
/// `Shape` parse each line of a chunk with `parse_fn(text, arena, &mut Line::default())` (`false`:
/// the line is malformed), keeping the chunk and its lines together in a self-referential cell
/// (in the private module `cells_module`) so that they move between threads whole.
macro_rules! line_shape {
    ($shape:ident, $cells:ident, $line:ident, $parse:path, $prefetch:path) => {
        mod $cells {
            use super::*;
            pub type Lines<'a> = $crate::text::shape::ArenaSlice<'a, Option<$line<'a>>>;
            self_cell::self_cell!(
                pub struct Parsed {
                    owner: $crate::text::shape::ChunkArena,
                    #[covariant]
                    dependent: Lines,
                }
            );
        }

        impl $crate::text::shape::Shape for $shape {
            type Line<'a> = $line<'a>;
            type Parsed = $cells::Parsed;

            fn parse(owner: $crate::text::shape::ChunkArena) -> Self::Parsed {
                $cells::Parsed::new(owner, |o| $crate::text::shape::parse_chunk_guarded(o, $parse))
            }

            fn owner(parsed: &Self::Parsed) -> &$crate::text::shape::ChunkArena {
                parsed.borrow_owner()
            }

            fn lines(parsed: &Self::Parsed) -> &[Option<$line<'_>>] {
                parsed.borrow_dependent()
            }

            fn into_owner(parsed: Self::Parsed) -> $crate::text::shape::ChunkArena {
                parsed.into_owner()
            }

            #[inline(always)]
            fn prefetch(line: &$line<'_>) {
                $prefetch(line)
            }
        }
    };
}
pub(crate) use line_shape;

/// Parse every line of a chunk: `None` for a line that is not valid UTF-8, or that `parse`
/// refuses. This is the part that runs in parallel; it reads nothing but the chunk. A panic in
/// the parser costs the chunk's lines (they read as malformed), not the analysis.
///
/// The lines are made in the chunk's arena, as their boxed parts are: arenas are reset and used
/// again for the next chunks, so a chunk's lines (about 1.4 MB for a megabyte of Copilot lines)
/// land in memory already mapped. A fresh `Vec` for each chunk was freed on another thread and
/// its pages given back and faulted in again: half of all page faults of a run, and a third of
/// its CPU time was system time.
pub(crate) fn parse_chunk_guarded<'a, L: Default>(
    owner: &'a ChunkArena,
    parse: impl Fn(&'a str, &'a bumpalo::Bump, &mut L) -> bool,
) -> ArenaSlice<'a, Option<L>> {
    let chunk = &owner.chunk;
    let arena = &owner.arena;
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut out = bumpalo::collections::Vec::with_capacity_in(chunk.lines.len(), arena);
        for l in &chunk.lines {
            // Validated once here (SIMD); the parser is then given a &str and does not check each
            // string again.
            let text = match l.how {
                LineEnd::Overlong | LineEnd::OverlongAtEnd => None,
                _ => simdutf8::basic::from_utf8(&chunk.bytes[l.start..l.end]).ok(),
            };
            // Each line is parsed where it stays.
            out.push(Some(L::default()));
            if let Some(slot) = out.last_mut() {
                if !text.is_some_and(|t| slot.as_mut().is_some_and(|line| parse(t, arena, line))) {
                    *slot = None;
                }
            }
        }
        ArenaSlice::new(out)
    }))
    .unwrap_or_else(|_| {
        ArenaSlice::new(bumpalo::collections::Vec::from_iter_in(chunk.lines.iter().map(|_| None), arena))
    })
}

/// Values made in an arena and owned here: dropped in place when this is dropped (the arena
/// keeps their memory until it is reset), as a `Box<[T]>` would be but for the memory. Unlike a
/// `bumpalo` `Vec` it holds no reference to the arena, so a chunk with its lines can be sent to
/// another thread together with the arena that holds them.
pub struct ArenaSlice<'a, T> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
    _lent: std::marker::PhantomData<&'a [T]>,
    _owned: std::marker::PhantomData<T>,
}

// SAFETY: it owns its values as a `Box<[T]>` does; their memory is the arena's, which `self_cell`
// keeps alive (and does not reset) until this is dropped, and which no one allocates from while
// the chunk is on another thread (a chunk with its lines is `Send`, not `Sync`).
unsafe impl<T: Send> Send for ArenaSlice<'_, T> {}

impl<'a, T> ArenaSlice<'a, T> {
    pub fn new(values: bumpalo::collections::Vec<'a, T>) -> Self {
        let slice = values.into_bump_slice_mut();
        let len = slice.len();
        ArenaSlice {
            ptr: std::ptr::NonNull::from(slice).cast(),
            len,
            _lent: std::marker::PhantomData,
            _owned: std::marker::PhantomData,
        }
    }
}

impl<T> std::ops::Deref for ArenaSlice<'_, T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` and `len` are the slice `new` was given, alive and initialised until drop.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for ArenaSlice<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the values are initialised and dropped once, here; the memory stays the arena's.
        unsafe { std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.len)) }
    }
}
