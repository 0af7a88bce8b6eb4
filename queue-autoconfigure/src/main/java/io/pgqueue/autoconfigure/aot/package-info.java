/**
 * Ahead-of-time processing and native images: what pgqueue reads by reflection or from resources, declared
 * as runtime hints.
 */
@NullMarked
package io.pgqueue.autoconfigure.aot;

import org.jspecify.annotations.NullMarked;

