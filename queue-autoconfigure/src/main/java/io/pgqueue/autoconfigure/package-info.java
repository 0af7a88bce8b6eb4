/**
 * Spring Boot auto-configuration and the {@code pgqueue.*} properties: wires every other package together.
 * The only package that knows all the others.
 */
@NullMarked
package io.pgqueue.autoconfigure;

import org.jspecify.annotations.NullMarked;

