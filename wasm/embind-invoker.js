// Embind's invoker for builds without eval (DYNAMIC_EXECUTION=0), given to em++ as a JS library
// so that it replaces Emscripten 3.1.6's own. That one sets two shared arrays' lengths, pushes
// every argument and calls through apply() and a new closure on every call: a fifth of a
// generation loop's fixed cost per token. This one wires up to four arguments into locals and
// keeps no state between calls, with a destructor list per call only where a type needs one.
// Later Emscripten versions build invokers alike (createJsInvoker).
mergeInto(LibraryManager.library, {
  $craftInvokerFunction__deps: ['$runDestructors', '$throwBindingError'],
  $craftInvokerFunction: function (humanName, argTypes, classType, cppInvokerFunc, cppTargetFunc) {
    var argCount = argTypes.length;
    if (argCount < 2) throwBindingError("argTypes array size mismatch! Must at least get return value and 'this' types!");
    var isClassMethod = argTypes[1] !== null && classType !== null;
    var needsDestructorStack = false;
    for (var i = 1; i < argCount; ++i) {
      if (argTypes[i] !== null && argTypes[i].destructorFunction === undefined) {
        needsDestructorStack = true;
        break;
      }
    }
    var returnType = argTypes[0];
    var returns = returnType.name !== 'void';
    var expected = argCount - 2;
    var thisType = argTypes[1];
    var params = argTypes.slice(2);
    // Types whose wire values are freed after the call (without a destructor stack).
    var freed = [];
    if (!needsDestructorStack) {
      if (isClassMethod && thisType.destructorFunction !== null) freed.push(-1);
      for (var p = 0; p < expected; ++p) if (params[p].destructorFunction !== null) freed.push(p);
    }
    function wire(destructors, index, value) {
      return params[index]['toWireType'](destructors, value);
    }
    function finish(destructors, thisWired, wired, rv) {
      if (needsDestructorStack) {
        runDestructors(destructors);
      } else {
        for (var f = 0; f < freed.length; ++f) {
          var at = freed[f];
          if (at < 0) thisType.destructorFunction(thisWired);
          else params[at].destructorFunction(wired[at]);
        }
      }
      return returns ? returnType['fromWireType'](rv) : undefined;
    }
    var none = [];
    return function () {
      if (arguments.length !== expected) {
        throwBindingError('function ' + humanName + ' called with ' + arguments.length + ' arguments, expected ' + expected + ' args!');
      }
      var destructors = needsDestructorStack ? [] : null;
      var thisWired = isClassMethod ? thisType['toWireType'](destructors, this) : 0;
      var rv;
      if (expected === 0) {
        rv = isClassMethod ? cppInvokerFunc(cppTargetFunc, thisWired) : cppInvokerFunc(cppTargetFunc);
        return finish(destructors, thisWired, none, rv);
      }
      if (expected <= 4) {
        var a = wire(destructors, 0, arguments[0]);
        var b = expected > 1 ? wire(destructors, 1, arguments[1]) : 0;
        var c = expected > 2 ? wire(destructors, 2, arguments[2]) : 0;
        var d = expected > 3 ? wire(destructors, 3, arguments[3]) : 0;
        if (isClassMethod) {
          rv = expected === 1 ? cppInvokerFunc(cppTargetFunc, thisWired, a)
            : expected === 2 ? cppInvokerFunc(cppTargetFunc, thisWired, a, b)
            : expected === 3 ? cppInvokerFunc(cppTargetFunc, thisWired, a, b, c)
            : cppInvokerFunc(cppTargetFunc, thisWired, a, b, c, d);
        } else {
          rv = expected === 1 ? cppInvokerFunc(cppTargetFunc, a)
            : expected === 2 ? cppInvokerFunc(cppTargetFunc, a, b)
            : expected === 3 ? cppInvokerFunc(cppTargetFunc, a, b, c)
            : cppInvokerFunc(cppTargetFunc, a, b, c, d);
        }
        return freed.length === 0 && !needsDestructorStack ? (returns ? returnType['fromWireType'](rv) : undefined)
          : finish(destructors, thisWired, [a, b, c, d], rv);
      }
      var wired = new Array(expected);
      var call = isClassMethod ? [cppTargetFunc, thisWired] : [cppTargetFunc];
      for (var i = 0; i < expected; ++i) call.push(wired[i] = wire(destructors, i, arguments[i]));
      return finish(destructors, thisWired, wired, cppInvokerFunc.apply(null, call));
    };
  },
});
