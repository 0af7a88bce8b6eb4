@NullMarked
package io.pgqueue.schema;

import org.jspecify.annotations.NullMarked;
