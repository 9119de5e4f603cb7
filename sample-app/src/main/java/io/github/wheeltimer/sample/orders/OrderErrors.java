package io.github.wheeltimer.sample.orders;

import org.springframework.core.task.TaskRejectedException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

/**
 * Turns the orders' failures into problem details (RFC 9457) that say what went wrong.
 */
@RestControllerAdvice(assignableTypes = OrderController.class)
class OrderErrors {

	@ExceptionHandler
	ProblemDetail notFound(OrderNotFoundException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail tooLate(PaymentTooLateException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail badArgument(IllegalArgumentException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail notAWholeNumber(MethodArgumentTypeMismatchException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
				ex.getName() + " must be a whole number, but was '" + ex.getValue() + "'");
	}

	@ExceptionHandler
	ProblemDetail unreadableBody(HttpMessageNotReadableException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
				"The body must be empty or a JSON object such as {\"item\": \"a teapot\"}");
	}

	/**
	 * The timer refused the delayed cancellation: it was stopped (from the page, for instance).
	 */
	@ExceptionHandler
	ProblemDetail timerRefused(TaskRejectedException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
	}

}
