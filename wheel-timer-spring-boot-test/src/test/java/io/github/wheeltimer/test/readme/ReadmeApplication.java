package io.github.wheeltimer.test.readme;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The application around the README's first example ({@link PaymentTimeouts} and its test), as a
 * reader's own would be: what {@code @SpringBootTest} finds in its package.
 */
@SpringBootApplication
public class ReadmeApplication {

}
