"""One small file per language, and the snippets the snippet tests place into it.

Every file has an import, a class `Shape` whose `describe` carries a doc comment and whose
`area` follows it, and a class `Circle` that also has a `describe` (so a bare `describe`
is ambiguous). The snippets are the shapes chat windows produce: a class with members
elided, a bare method, a changed method followed by a new one, imports.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    path: str
    file: str
    elided_class: str  # class Shape, members elided, `describe` with a new doc comment
    bare_describe: str  # `describe` alone: Shape's and Circle's (Go: a plain function)
    area_and_new: str  # a changed `area`, then a new `perimeter` (bare members)
    imports: str  # an import the file has, one it lacks, and the elided class again
    new_import: str  # the line the file gains
    old_doc: str  # the doc comment the elided class's `describe` replaces
    new_doc: str


SAMPLES: dict[str, Sample] = {
    "python": Sample(
        "src/shapes.py",
        """import math


class Shape:
    def __init__(self, name):
        self.name = name

    # Old doc.
    def describe(self):
        return self.name

    def area(self):
        return 0


class Circle:
    def describe(self):
        return "circle"
""",
        """class Shape:
    # ... existing code ...

    # New doc.
    def describe(self):
        return "NEW " + self.name
""",
        """    def describe(self):
        return "NEW"
""",
        """    def area(self):
        return 1  # NEW

    def perimeter(self):
        return 4
""",
        """import math
import os

class Shape:
    # ...
    # New doc.
    def describe(self):
        return os.sep + "NEW"
""",
        "import os",
        "# Old doc.",
        "# New doc.",
    ),
    "typescript": Sample(
        "src/shapes.ts",
        """import { sep } from "./sep";

export class Shape {
  constructor(private name: string) {}

  /** Old doc. */
  describe(): string {
    return this.name;
  }

  area(): number {
    return 0;
  }
}

export class Circle {
  describe(): string {
    return "circle";
  }
}
""",
        """class Shape {
  // ... existing code ...

  /** New doc. */
  describe(): string {
    return "NEW " + this.name;
  }
}
""",
        """describe(): string {
  return "NEW";
}
""",
        """  area(): number {
    return 1; // NEW
  }

  perimeter(): number {
    return 4;
  }
""",
        """import { sep } from "./sep";
import { join } from "./join";

export class Shape {
  // ...
  /** New doc. */
  describe(): string {
    return join(sep, "NEW");
  }
}
""",
        'import { join } from "./join";',
        "/** Old doc. */",
        "/** New doc. */",
    ),
    "tsx": Sample(
        "src/Shapes.tsx",
        """import React from "react";

export class Shape extends React.Component {
  /** Old doc. */
  describe() {
    return <b>shape</b>;
  }

  area() {
    return 0;
  }
}

export class Circle extends React.Component {
  describe() {
    return <i>circle</i>;
  }
}
""",
        """export class Shape extends React.Component {
  {/* ... */}
  /** New doc. */
  describe() {
    return <b>NEW</b>;
  }
}
""",
        """  describe() {
    return <b>NEW</b>;
  }
""",
        """  area() {
    return 1; // NEW
  }

  perimeter() {
    return <span>4</span>;
  }
""",
        """import React from "react";
import { useState } from "react";

export class Shape extends React.Component {
  // ... existing code ...
  /** New doc. */
  describe() {
    return <b>{useState(0)[0]} NEW</b>;
  }
}
""",
        'import { useState } from "react";',
        "/** Old doc. */",
        "/** New doc. */",
    ),
    "javascript": Sample(
        "src/shapes.js",
        '''import { sep } from "./sep.js";

export class Shape {
  constructor(name) {
    this.name = name;
  }

  /** Old doc. */
  describe() {
    return this.name;
  }

  area() {
    return 0;
  }
}

export class Circle {
  describe() {
    return "circle";
  }
}
''',
        '''class Shape {
  // ... existing code ...

  /** New doc. */
  describe() {
    return "NEW " + this.name;
  }
}
''',
        '''  describe() {
    return "NEW";
  }
''',
        '''  area() {
    return 1; // NEW
  }

  perimeter() {
    return 4;
  }
''',
        '''import { sep } from "./sep.js";
import { join } from "./join.js";

class Shape {
  // ...
  /** New doc. */
  describe() {
    return join(sep, "NEW");
  }
}
''',
        'import { join } from "./join.js";',
        "/** Old doc. */",
        "/** New doc. */",
    ),
    "go": Sample(
        "shapes/shapes.go",
        """package shapes

import (
\t"fmt"
)

type Shape struct {
\tName string
}

// Describe is the old doc.
func (s *Shape) Describe() string {
\treturn s.Name
}

func (s *Shape) Area() int {
\treturn 0
}

type Circle struct{}

func (c *Circle) Describe() string {
\treturn fmt.Sprint("circle")
}
""",
        """// Describe is the new doc.
func (s *Shape) Describe() string {
\treturn "NEW " + s.Name
}
""",
        """func Describe() string {
\treturn "NEW"
}
""",
        """func (s *Shape) Area() int {
\treturn 1 // NEW
}

func (s *Shape) Perimeter() int {
\treturn 4
}
""",
        """import (
\t"fmt"
\t"strings"
)

// Describe is the new doc.
func (s *Shape) Describe() string {
\treturn strings.ToUpper(fmt.Sprint("NEW"))
}
""",
        '\t"strings"',
        "// Describe is the old doc.",
        "// Describe is the new doc.",
    ),
    "rust": Sample(
        "src/shapes.rs",
        """use std::fmt;

pub struct Shape {
    name: String,
}

impl Shape {
    /// Old doc.
    pub fn describe(&self) -> String {
        self.name.clone()
    }

    pub fn area(&self) -> u32 {
        0
    }
}

pub struct Circle;

impl Circle {
    pub fn describe(&self) -> String {
        "circle".to_string()
    }
}
""",
        """impl Shape {
    // ... existing code ...

    /// New doc.
    pub fn describe(&self) -> String {
        format!("NEW {}", self.name)
    }
}
""",
        """    pub fn describe(&self) -> String {
        "NEW".to_string()
    }
""",
        """    pub fn area(&self) -> u32 {
        1 // NEW
    }

    pub fn perimeter(&self) -> u32 {
        4
    }
""",
        """use std::fmt;
use std::collections::HashMap;

impl Shape {
    // ...
    /// New doc.
    pub fn describe(&self) -> String {
        format!("NEW {}", HashMap::<u8, u8>::new().len())
    }
}
""",
        "use std::collections::HashMap;",
        "/// Old doc.",
        "/// New doc.",
    ),
    "java": Sample(
        "src/Shape.java",
        """package demo;

import java.util.List;

public class Shape {
    private String name;

    /** Old doc. */
    public String describe() {
        return name;
    }

    public int area() {
        return 0;
    }

    static class Circle {
        public String describe() {
            return "circle";
        }
    }
}
""",
        """public class Shape {
    // ... existing code ...

    /** New doc. */
    public String describe() {
        return "NEW " + name;
    }
}
""",
        """public String describe() {
    return "NEW";
}
""",
        """    public int area() {
        return 1; // NEW
    }

    public int perimeter() {
        return 4;
    }
""",
        """import java.util.List;
import java.util.Map;

public class Shape {
    // ...
    /** New doc. */
    public String describe() {
        return "NEW" + Map.of().size();
    }
}
""",
        "import java.util.Map;",
        "/** Old doc. */",
        "/** New doc. */",
    ),
    "csharp": Sample(
        "src/Shape.cs",
        """using System;

namespace Demo
{
    public class Shape
    {
        private string name = "";

        /// <summary>Old doc.</summary>
        public string Describe()
        {
            return name;
        }

        public int Area()
        {
            return 0;
        }
    }

    public class Circle
    {
        public string Describe()
        {
            return "circle";
        }
    }
}
""",
        """public class Shape
{
    // ... existing code ...

    /// <summary>New doc.</summary>
    public string Describe()
    {
        return "NEW " + name;
    }
}
""",
        """public string Describe()
{
    return "NEW";
}
""",
        """public int Area()
{
    return 1; // NEW
}

public int Perimeter()
{
    return 4;
}
""",
        """using System;
using System.Linq;

public class Shape
{
    // ...
    /// <summary>New doc.</summary>
    public string Describe()
    {
        return "NEW" + new[] { 1 }.Count();
    }
}
""",
        "using System.Linq;",
        "/// <summary>Old doc.</summary>",
        "/// <summary>New doc.</summary>",
    ),
    "ruby": Sample(
        "lib/shapes.rb",
        """require "json"

class Shape
  def initialize(name)
    @name = name
  end

  # Old doc.
  def describe
    @name
  end

  def area
    0
  end
end

class Circle
  def describe
    "circle"
  end
end
""",
        """class Shape
  # ... existing code ...

  # New doc.
  def describe
    "NEW #{@name}"
  end
end
""",
        """  def describe
    "NEW"
  end
""",
        """  def area
    1 # NEW
  end

  def perimeter
    4
  end
""",
        """require "json"
require "set"

class Shape
  # ...
  # New doc.
  def describe
    Set.new(["NEW"]).to_a.join
  end
end
""",
        'require "set"',
        "# Old doc.",
        "# New doc.",
    ),
}
