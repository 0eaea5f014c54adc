import json
from langchain.agents import create_openai_tools_agent
from langchain.agents import AgentExecutor
from langchain.chat_models import ChatOpenAI
from langchain.prompts import ChatPromptTemplate
from langchain.tools import Tool
from ..tools.pdf_processor import PDFProcessor
from ..tools.paper_analyzer import PaperAnalyzer
import re
class PaperAgent:
    def __init__(self, api_key):
        self.api_key = api_key
        self.llm = ChatOpenAI(
            temperature=0,
            model="gpt-4-turbo",
            openai_api_key=api_key
        )
        self.pdf_processor = PDFProcessor(api_key)
        self.paper_analyzer = PaperAnalyzer()
        
        self.tools = [
            Tool(
                name="process_pdf",
                func=self.pdf_processor.process,
                description="Process a PDF file and extract its text content"
            ),
            Tool(
                name="analyze_paper",
                func=self.paper_analyzer.analyze,
                description="Analyze paper content and extract structured information"
            )
        ]
        
        self.agent = create_openai_tools_agent(
            llm=self.llm,
            tools=self.tools,
            prompt=self._create_prompt()
        )
        
        self.agent_executor = AgentExecutor(
            agent=self.agent,
            tools=self.tools,
            verbose=True
        )
    
    def _create_prompt(self):
        prompt = ChatPromptTemplate.from_messages([
            ("system", "You are an expert at analyzing academic papers. Extract key information accurately."),
            ("user", "{input}"),
            ("user", "{agent_scratchpad}")
        ])
        return prompt
    
 
    def analyze_papers(self, paper_paths):
        """Analyze multiple papers and return structured summaries"""
        from concurrent.futures import ThreadPoolExecutor
        import threading

        thread_local = threading.local()
        results = []

        def analyze_single_paper(path):
            try:
                # First process the PDF and get chunks with embeddings
                processed_data = self.pdf_processor.process(path)
                chunks = processed_data['chunks']
                vectorstore = processed_data['vectorstore']
                text_chunks = [chunk.page_content for chunk in chunks]
                # Get information from specific sections
                queries = {
                    "title abstract authors affiliations": 5,  # Increased metadata chunks
                    "introduction background objective": 4,  # More context
                    "methods methodology algorithm model": 5,  # More technical details
                    "data dataset preprocessing cleaning": 4,  # Data handling
                    "results performance metrics evaluation": 4,  # Outcomes
                    "discussion findings implications": 3,  # Interpretations
                    "conclusion future work": 3  # Final remarks
                }
                
                relevant_chunks = []
                for query, k in queries.items():
                    results = vectorstore.similarity_search(query, k=k)
                    relevant_chunks.extend([doc.page_content for doc in results])
                
                # Combine and deduplicate chunks
                all_chunks = text_chunks + relevant_chunks
                unique_chunks = list(set(all_chunks))

                with open("test.txt", "w", encoding="utf-8") as file:
                    for chunk in unique_chunks:
                        file.write(chunk + "\n\n")
                analysis = self.paper_analyzer.analyze(unique_chunks)
                
                
                # Use the agent to extract structured information
                result = self.agent_executor.invoke({
                    "input": f"""
                    Based on the following paper analysis, extract the requested information in JSON format:
                    {analysis}
                    """
                })
                
                # Extract JSON from the final analysis
                if isinstance(analysis, dict) and 'output' in analysis:
                    json_str = self._extract_json(analysis['output'])
                    if json_str:
                        return json.loads(json_str)
                    else:
                        return {"error": "No JSON found in output", "file": path}
                else:
                    return {"error": "Unexpected output format", "file": path}
                    
            except Exception as e:
                return {
                    "error": str(e),
                    "file": path
                }
        def process_paper(path):
            try:
                return analyze_single_paper(path)
            except Exception as e:
                return {
                    "error": str(e),
                    "file": path
                }

        # Process papers in parallel
        with ThreadPoolExecutor(max_workers=3) as executor:
            results = list(executor.map(process_paper, paper_paths))

        return results
