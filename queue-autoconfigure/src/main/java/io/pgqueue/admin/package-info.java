@NullMarked
package io.pgqueue.admin;

import org.jspecify.annotations.NullMarked;
