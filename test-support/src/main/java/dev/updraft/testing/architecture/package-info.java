/**
 * Package layering as the build checks it: {@link dev.updraft.testing.architecture.PackageLayers} declares a
 * module's layers once and fails a unit test on a package cycle or an import against the declared order.
 */
package dev.updraft.testing.architecture;
