/**
 * Micrometer binding for {@link dev.gmp.GmpExecutor}: {@link
 * dev.gmp.micrometer.GmpExecutorMetrics}. Needs {@code io.micrometer:micrometer-core} on the
 * class or module path; gmp-core itself declares it optional and never loads this package unless
 * the application does.
 */
package dev.gmp.micrometer;
