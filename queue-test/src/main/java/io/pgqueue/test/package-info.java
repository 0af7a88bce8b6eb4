/**
 * Helpers for the tests of applications that use pgqueue.
 */
@NullMarked
package io.pgqueue.test;

import org.jspecify.annotations.NullMarked;
