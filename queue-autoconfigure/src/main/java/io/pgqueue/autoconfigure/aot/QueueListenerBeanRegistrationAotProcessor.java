package io.pgqueue.autoconfigure.aot;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Map;

import io.pgqueue.annotation.QueueListener;
import io.pgqueue.listener.JobContext;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * For each bean with {@code @QueueListener} methods, declares what pgqueue does to it by reflection at run
 * time: it invokes the methods, and reads their payload types (and what those contain) from JSON.
 */
class QueueListenerBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        Class<?> beanClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
        Map<Method, QueueListener> listeners = MethodIntrospector.selectMethods(beanClass,
                (MethodIntrospector.MetadataLookup<QueueListener>) (method) -> AnnotatedElementUtils
                    .findMergedAnnotation(method, QueueListener.class));
        if (listeners.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> registerHints(generationContext.getRuntimeHints(), listeners.keySet());
    }

    static void registerHints(RuntimeHints hints, Iterable<Method> listeners) {
        BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();
        for (Method method : listeners) {
            hints.reflection().registerMethod(method, ExecutableMode.INVOKE);
            for (Type parameter : method.getGenericParameterTypes()) {
                if (!JobContext.class.equals(parameter)) {
                    bindings.registerReflectionHints(hints.reflection(), parameter);
                }
            }
            bindings.registerReflectionHints(hints.reflection(), method.getGenericReturnType());
        }
    }
}
