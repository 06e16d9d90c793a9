// Copyright 2026 The GridStore Authors.
//
// Clang thread-safety annotations (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html), as
// Abseil's base/thread_annotations.h and LevelDB's port/thread_annotations.h: what a mutex guards
// and which functions need it held are checked by the compiler (-Wthread-safety, a CI build)
// instead of stated in comments. Empty for other compilers.
#ifndef GRIDSTORE_UTIL_INTERNAL_THREAD_ANNOTATIONS_H_
#define GRIDSTORE_UTIL_INTERNAL_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define GRIDSTORE_THREAD_ANNOTATION_(x) __attribute__((x))
#else
#define GRIDSTORE_THREAD_ANNOTATION_(x)
#endif

// A member that may be read or written only with `mu` held.
#define GUARDED_BY(mu) GRIDSTORE_THREAD_ANNOTATION_(guarded_by(mu))
// A pointer whose pointee may be used only with `mu` held.
#define PT_GUARDED_BY(mu) GRIDSTORE_THREAD_ANNOTATION_(pt_guarded_by(mu))
// The caller must hold the mutexes.
#define REQUIRES(...) GRIDSTORE_THREAD_ANNOTATION_(requires_capability(__VA_ARGS__))
// The caller must hold the mutexes at least shared (for reading).
#define REQUIRES_SHARED(...) GRIDSTORE_THREAD_ANNOTATION_(requires_shared_capability(__VA_ARGS__))
// The caller must not hold the mutexes (the function takes them).
#define EXCLUDES(...) GRIDSTORE_THREAD_ANNOTATION_(locks_excluded(__VA_ARGS__))
// The function takes / releases the mutexes.
#define ACQUIRE(...) GRIDSTORE_THREAD_ANNOTATION_(acquire_capability(__VA_ARGS__))
#define RELEASE(...) GRIDSTORE_THREAD_ANNOTATION_(release_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) GRIDSTORE_THREAD_ANNOTATION_(acquire_shared_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) GRIDSTORE_THREAD_ANNOTATION_(release_shared_capability(__VA_ARGS__))
// Releases whatever (exclusive or shared) the caller holds; for scoped locks' destructors.
#define RELEASE_GENERIC(...) GRIDSTORE_THREAD_ANNOTATION_(release_generic_capability(__VA_ARGS__))
// A type that is a mutex, and one that holds a mutex for its lifetime.
#define CAPABILITY(name) GRIDSTORE_THREAD_ANNOTATION_(capability(name))
#define SCOPED_CAPABILITY GRIDSTORE_THREAD_ANNOTATION_(scoped_lockable)
// The function returns a reference to the mutex `mu`.
#define RETURN_CAPABILITY(mu) GRIDSTORE_THREAD_ANNOTATION_(lock_returned(mu))
// Asserts (to the analysis) that the mutex is held.
#define ASSERT_CAPABILITY(mu) GRIDSTORE_THREAD_ANNOTATION_(assert_capability(mu))
// Turns the analysis off for one function; say why where it is used.
#define NO_THREAD_SAFETY_ANALYSIS GRIDSTORE_THREAD_ANNOTATION_(no_thread_safety_analysis)

#endif  // GRIDSTORE_UTIL_INTERNAL_THREAD_ANNOTATIONS_H_
